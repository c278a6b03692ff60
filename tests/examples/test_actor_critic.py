"""PyTorch's examples/reinforcement_learning/actor_critic.py (one network with an action head and a
value head, SavedAction namedtuples of log-probability and value, advantages R - value.item(),
smooth_l1_loss for the critic, torch.stack of the losses, Adam at 3e-2) written as the PyTorch program
with `ember` in place of `torch`, on a NumPy cart-pole (numpy_cartpole.py) capped at 200 steps; the episode
loop, shared with the other example, is cartpole_episodes.py."""
from collections import namedtuple

import numpy as np
from cartpole_episodes import assert_learns_to_balance
from numpy_cartpole import CartPole

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
import ember.optim as optim
from ember.distributions import Categorical

GAMMA = 0.99
SavedAction = namedtuple('SavedAction', ['log_prob', 'value'])


class Policy(nn.Module):
    """implements both actor and critic in one model"""

    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(4, 128)
        self.action_head = nn.Linear(128, 2)  # actor's layer
        self.value_head = nn.Linear(128, 1)  # critic's layer
        self.saved_actions = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.affine1(x))
        action_prob = F.softmax(self.action_head(x), dim=-1)
        state_values = self.value_head(x)
        return action_prob, state_values


def test_actor_critic_learns_to_balance_the_pole():
    env = CartPole(max_steps=200)
    torch.manual_seed(543)
    model = Policy()
    optimizer = optim.Adam(model.parameters(), lr=3e-2)
    eps = np.finfo(np.float32).eps.item()

    def select_action(state):
        state = torch.from_numpy(state).float()
        probs, state_value = model(state)
        m = Categorical(probs)
        action = m.sample()
        model.saved_actions.append(SavedAction(m.log_prob(action), state_value))
        return action.item()

    def finish_episode():
        R = 0
        saved_actions = model.saved_actions
        policy_losses = []  # list to save actor (policy) loss
        value_losses = []  # list to save critic (value) loss
        returns = []  # list to save the true values
        for r in model.rewards[::-1]:
            R = r + GAMMA * R
            returns.insert(0, R)
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + eps)
        for (log_prob, value), R in zip(saved_actions, returns):
            advantage = R - value.item()
            policy_losses.append(-log_prob * advantage)
            value_losses.append(F.smooth_l1_loss(value, torch.tensor([R])))
        optimizer.zero_grad()
        loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()
        loss.backward()
        optimizer.step()
        del model.rewards[:]
        del model.saved_actions[:]

    assert_learns_to_balance(env, select_action, model.rewards, finish_episode, max_episodes=300)
