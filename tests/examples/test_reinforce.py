"""PyTorch's examples/reinforcement_learning/reinforce.py (a policy network with dropout and softmax,
actions sampled from torch.distributions.Categorical, discounted returns normalised with the float32
eps, the policy-gradient loss summed with torch.cat, Adam) written as the PyTorch program with `ember`
in place of `torch`, on a NumPy cart-pole (numpy_cartpole.py) capped at 200 steps; the episode loop, shared
with the other example, is cartpole_episodes.py. Trains: episodes grow from a random policy's ~20 steps."""
from collections import deque

import numpy as np
from cartpole_episodes import assert_learns_to_balance
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

    assert_learns_to_balance(env, select_action, policy.rewards, finish_episode, max_episodes=250)
