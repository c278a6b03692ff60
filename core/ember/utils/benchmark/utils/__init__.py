"""ember.utils.benchmark's parts, at the module paths torch.utils.benchmark.utils has."""
