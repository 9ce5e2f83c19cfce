"""The seed's CuPy network (python/examples/cupy_cnn) on gpulab.cupy: its data, each layer's
gradients against the float64 NumPy network, and a few SGD steps against the float64 steps."""

import os
import sys

import numpy as np
import pytest

import gpulab.cupy as cp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "cupy_cnn"))
import reference  # noqa: E402
from cnn import CNN, initial_parameters  # noqa: E402
from shapes import make_shapes  # noqa: E402

SMALL = dict(side=8, c1=3, c2=4, hidden=16)


def test_the_image_classes_are_drawn_from_the_seed():
    x, labels = make_shapes(20, 16, seed=7)
    assert x.shape == (20, 3, 16, 16) and x.dtype == np.float32
    assert list(labels) == [i % 10 for i in range(20)]
    np.testing.assert_array_equal(x, make_shapes(20, 16, seed=7)[0])
    assert not np.array_equal(x, make_shapes(20, 16, seed=8)[0])
    flat = x.reshape(20, -1).astype(np.float64)
    np.testing.assert_allclose(flat.mean(axis=1), 0, atol=1e-5)
    np.testing.assert_allclose(flat.std(axis=1), 1, rtol=1e-4)


@pytest.mark.parametrize("batch, side", [(1, 4), (5, 8), (3, 12)])
def test_one_steps_loss_and_gradients_match_the_float64_network(batch, side):
    params = initial_parameters(side, SMALL["c1"], SMALL["c2"], SMALL["hidden"], seed=batch)
    x, labels = make_shapes(batch, side, seed=batch + 10)
    net = CNN(cp, params)
    logits = net.forward(cp.asarray(x))
    loss, dlogits = net.loss(logits, cp.asarray(labels))
    grads = net.backward(dlogits)
    want_loss, want, want_logits = reference.step(params, x, labels)
    # float32 sums of at most a few hundred products: a few ulps of the largest magnitude each
    np.testing.assert_allclose(logits.get(), want_logits, atol=1e-4 * np.abs(want_logits).max())
    assert loss == pytest.approx(want_loss, rel=1e-5)
    for name, g in grads.items():
        scale = max(np.abs(want[name]).max(), 1e-6)
        np.testing.assert_allclose(g.get(), want[name], atol=2e-4 * scale, err_msg=name)


def test_sgd_steps_follow_the_float64_steps():
    side, batch, rate, steps = 8, 6, 0.05, 4
    params = initial_parameters(side, SMALL["c1"], SMALL["c2"], SMALL["hidden"], seed=3)
    x, labels = make_shapes(batch * steps, side, seed=4)
    net = CNN(cp, params)
    p64 = {k: v.astype(np.float64) for k, v in params.items()}
    for s in range(steps):
        xb, lb = x[s * batch:(s + 1) * batch], labels[s * batch:(s + 1) * batch]
        loss = net.step(cp.asarray(xb), cp.asarray(lb), rate)
        want, g, _ = reference.step(p64, xb, lb)
        p64 = {k: p64[k] - rate * g[k] for k in p64}
        assert loss == pytest.approx(want, rel=1e-4), f"step {s}"
    for name, w in net.p.items():
        np.testing.assert_allclose(w.get(), p64[name], atol=1e-4 * np.abs(p64[name]).max(), err_msg=name)
