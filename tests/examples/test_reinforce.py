"""PyTorch's examples/reinforcement_learning/reinforce.py (a policy network with dropout and softmax,
actions sampled from torch.distributions.Categorical, discounted returns normalised with the float32
eps, the policy-gradient loss summed with torch.cat, Adam) written as the PyTorch program with `ember`
in place of `torch`, on a NumPy cart-pole (numpy_cartpole.py) capped at 200 steps. Trains: episodes
grow from a random policy's ~20 steps."""
from collections import deque
from itertools import count

import numpy as np
from numpy_cartpole import CartPole

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
import ember.optim as optim
from ember.distributions import Categorical

GAMMA = 0.99


class Policy(nn.Module):
    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(4, 128)
        self.dropout = nn.Dropout(p=0.6)
        self.affine2 = nn.Linear(128, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        x = F.relu(x)
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


def test_reinforce_learns_to_balance_the_pole():
    env = CartPole(max_steps=200)
    torch.manual_seed(543)
    policy = Policy()
    optimizer = optim.Adam(policy.parameters(), lr=1e-2)
    eps = np.finfo(np.float32).eps.item()

    def select_action(state):
        state = torch.from_numpy(state).float().unsqueeze(0)
        probs = policy(state)
        m = Categorical(probs)
        action = m.sample()
        policy.saved_log_probs.append(m.log_prob(action))
        return action.item()

    def finish_episode():
        R = 0
        policy_loss = []
        returns = deque()
        for r in policy.rewards[::-1]:
            R = r + GAMMA * R
            returns.appendleft(R)
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + eps)
        for log_prob, R in zip(policy.saved_log_probs, returns):
            policy_loss.append(-log_prob * R)
        optimizer.zero_grad()
        policy_loss = torch.cat(policy_loss).sum()
        policy_loss.backward()
        optimizer.step()
        del policy.rewards[:]
        del policy.saved_log_probs[:]

    running_reward = 10
    lengths = []
    for i_episode in count(1):
        state, _ = env.reset(seed=543 + i_episode)
        ep_reward = 0
        for t in range(1, 10000):  # Don't infinite loop while learning
            action = select_action(state)
            state, reward, done, truncated, _ = env.step(action)
            policy.rewards.append(reward)
            ep_reward += reward
            if done or truncated:
                break
        lengths.append(t)
        running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
        finish_episode()
        if running_reward > 120 or i_episode >= 250:
            break
    first = np.mean(lengths[:5])
    assert first < 60, first  # an untrained policy keeps the pole up for about 20 steps
    # the running reward starts at 10: reaching 120 takes a long run of long episodes (in about 85 here)
    assert running_reward > 120, (i_episode, running_reward, lengths[-20:])
