"""Experimental fx passes (torch.fx.experimental)."""
