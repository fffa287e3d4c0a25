"""The test machine's cores are shared: one torch thread keeps every test fast and deterministic."""

import torch

torch.set_num_threads(1)
