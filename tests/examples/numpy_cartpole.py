"""A cart-pole balancing environment in NumPy for the reinforcement-learning example tests (no gym here):
the classic frictionless cart and pole (Barto, Sutton and Anderson 1983) stepped by Euler's method every
0.02 s, with gymnasium's interface: reset(seed) -> (state, info) and
step(action) -> (state, reward, terminated, truncated, info). Action 0 pushes left, 1 right; reward 1
per step until the pole passes 12 degrees or the cart leaves [-2.4, 2.4], or max_steps are reached."""
import math

import numpy as np


class CartPole:
    gravity, cart_mass, pole_mass, half_pole_length, force, dt = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
    angle_limit, position_limit = 12 * 2 * math.pi / 360, 2.4

    def __init__(self, max_steps=200):
        self.max_steps = max_steps
        self.rng = np.random.default_rng()
        self.state = None
        self.steps = 0

    def reset(self, seed=None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.state = self.rng.uniform(-0.05, 0.05, size=4)
        self.steps = 0
        return self.state.astype(np.float32), {}

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        push = self.force if action == 1 else -self.force
        total_mass = self.cart_mass + self.pole_mass
        pole_moment = self.pole_mass * self.half_pole_length
        cos, sin = math.cos(theta), math.sin(theta)
        common = (push + pole_moment * theta_dot ** 2 * sin) / total_mass
        theta_acc = (self.gravity * sin - cos * common) / (
            self.half_pole_length * (4.0 / 3.0 - self.pole_mass * cos ** 2 / total_mass))
        x_acc = common - pole_moment * theta_acc * cos / total_mass
        self.state = np.array([x + self.dt * x_dot, x_dot + self.dt * x_acc,
                               theta + self.dt * theta_dot, theta_dot + self.dt * theta_acc])
        self.steps += 1
        terminated = bool(abs(self.state[0]) > self.position_limit or abs(self.state[2]) > self.angle_limit)
        truncated = self.steps >= self.max_steps
        return self.state.astype(np.float32), 1.0, terminated, truncated, {}
