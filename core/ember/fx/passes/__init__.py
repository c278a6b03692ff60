"""Graph passes (torch.fx.passes): shape propagation and splitting a module into submodules."""
