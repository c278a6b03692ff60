"""The main loop PyTorch's reinforcement-learning examples (reinforce.py, actor_critic.py) share, on the NumPy
cart-pole: episodes until the running reward passes 120 (or a cap), each finished by the example's own update,
and the checks that the policy learned."""
from itertools import count

import numpy as np


def assert_learns_to_balance(env, select_action, rewards, finish_episode, max_episodes):
    """select_action(state) -> action; each step's reward is appended to the list rewards; finish_episode()
    updates the policy after each episode."""
    running_reward = 10
    lengths = []
    for i_episode in count(1):
        state, _ = env.reset(seed=543 + i_episode)
        ep_reward = 0
        for t in range(1, 10000):  # Don't infinite loop while learning
            action = select_action(state)
            state, reward, done, truncated, _ = env.step(action)
            rewards.append(reward)
            ep_reward += reward
            if done or truncated:
                break
        lengths.append(t)
        running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
        finish_episode()
        if running_reward > 120 or i_episode >= max_episodes:
            break
    first = np.mean(lengths[:5])
    assert first < 60, first  # an untrained policy keeps the pole up for about 20 steps
    # the running reward starts at 10: reaching 120 takes a long run of long episodes (in about 85 for reinforce)
    assert running_reward > 120, (i_episode, running_reward, lengths[-20:])
