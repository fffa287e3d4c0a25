"""Environments for asymmetric self-play; ``ENVS`` maps a name to (make(n), config())."""
