"""The policy's sampling (``sample_categorical``): draws follow the head's probabilities and never land on a masked
(probability 0) class, at the ends of the unit interval too."""

import numpy as np
import torch

from fivestack.model.policy import sample_categorical


def test_draws_follow_the_probabilities():
    probs = torch.tensor([[0.0, 0.2, 0.0, 0.5, 0.3, 0.0]]).expand(200_000, -1)
    draws = sample_categorical(probs, torch.rand(200_000, generator=torch.Generator().manual_seed(0)))
    freq = torch.bincount(draws, minlength=6).double() / 200_000
    # a binomial's standard error at p = 0.5 over 200k draws is 0.0011: 0.005 is ~4.5 of them
    np.testing.assert_allclose(freq.numpy(), [0.0, 0.2, 0.0, 0.5, 0.3, 0.0], atol=0.005)


def test_masked_classes_are_never_drawn_at_the_ends_of_the_interval():
    probs = torch.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 0.3, 0.7]])
    # sums that round below 1 and unnormalised rows do not move a draw onto a masked class either
    probs = torch.cat([probs, probs * 0.9999999])
    for u in (0.0, 1e-12, 0.5, 1.0 - 1e-7, np.nextafter(np.float32(1.0), np.float32(0.0))):
        draws = sample_categorical(probs, torch.full((len(probs),), float(u)))
        assert (probs[torch.arange(len(probs)), draws] > 0).all(), u
    edges = sample_categorical(probs[3:4].expand(2, -1), torch.tensor([0.0, 1.0 - 1e-7]))
    assert edges.tolist() == [2, 1]  # u = 0 takes the last class of mass, u -> 1 the first (the CDF inverted at 1 - u)
