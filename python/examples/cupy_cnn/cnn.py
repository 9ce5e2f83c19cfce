"""The seed article's CuPy network, made real: a small CNN written against CuPy's API — arrays made
with cp.asarray and cp.zeros, and every layer a raw CUDA kernel (cnn_kernels.cu) launched through
cp.RawModule — with its forward and backward passes and plain SGD.

    conv 3×3 (3 → c1) · ReLU · max-pool 2 · conv 3×3 (c1 → c2) · ReLU · max-pool 2
    · linear (c2·(side/4)² → hidden) · ReLU · linear (hidden → 10) · softmax cross-entropy

It runs unchanged on CuPy (`import cupy as cp`) and on GPU Lab's `import gpulab.cupy as cp`, on a
GPU or on the emulator, where every launch is checked: pass the module as `cp`."""

import os

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
THREADS = 256


def initial_parameters(side, c1, c2, hidden, classes=10, seed=1):
    """He-initialised weights and zero biases, float32, from a seed: the same on every backend."""
    rng = np.random.default_rng(seed)
    features = c2 * (side // 4) ** 2

    def he(shape, fan_in):
        return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)

    return {
        "conv1_w": he((c1, 3, 3, 3), 3 * 9), "conv1_b": np.zeros(c1, np.float32),
        "conv2_w": he((c2, c1, 3, 3), c1 * 9), "conv2_b": np.zeros(c2, np.float32),
        "fc1_w": he((hidden, features), features), "fc1_b": np.zeros(hidden, np.float32),
        "fc2_w": he((classes, hidden), hidden), "fc2_b": np.zeros(classes, np.float32),
    }


class CNN:
    def __init__(self, cp, parameters):
        self.cp = cp
        with open(os.path.join(_HERE, "cnn_kernels.cu")) as f:
            self.module = cp.RawModule(code=f.read())
        self.k = {name: self.module.get_function(name) for name in (
            "conv3x3_forward", "conv3x3_backward_input", "conv3x3_backward_weight", "relu_forward",
            "relu_backward", "maxpool2_forward", "maxpool2_backward", "linear_forward", "linear_backward_input",
            "linear_backward_weight", "softmax_cross_entropy", "sgd_update")}
        self.p = {name: cp.asarray(value) for name, value in parameters.items()}
        self.c1, self.c2 = self.p["conv1_w"].shape[0], self.p["conv2_w"].shape[0]
        self.hidden, self.classes = self.p["fc1_w"].shape[0], self.p["fc2_w"].shape[0]

    def _launch(self, name, count, *args):
        """One thread per element of `count`, in blocks of THREADS."""
        i32 = np.int32
        self.k[name](((count + THREADS - 1) // THREADS,), (THREADS,),
                     tuple(i32(a) if isinstance(a, int) else a for a in args))

    def _conv_block(self, x, layer, c_in, c_out, side):
        """conv 3×3 · ReLU · max-pool 2 of x (n × c_in × side × side): the ReLU's output, the pooled
        output and the pooling's winners (what backward needs)."""
        cp, f32, n = self.cp, np.float32, x.shape[0]
        a = cp.empty((n, c_out, side, side), f32)
        self._launch("conv3x3_forward", a.size, x, self.p[layer + "_w"], self.p[layer + "_b"], a, n, c_in, c_out, side,
                     side)
        r = cp.empty_like(a)
        self._launch("relu_forward", a.size, a, r, a.size)
        pooled = cp.empty((n, c_out, side // 2, side // 2), f32)
        which = cp.empty(pooled.shape, np.int32)
        self._launch("maxpool2_forward", pooled.size, r, pooled, which, n * c_out, side, side)
        return r, pooled, which

    def forward(self, x):
        """The logits of a batch x (n × 3 × side × side); what backward needs is kept."""
        cp, f32 = self.cp, np.float32
        n, _, side, _ = x.shape
        s = {"x": x, "n": n, "side": side}
        r1, p1, w1 = self._conv_block(x, "conv1", 3, self.c1, side)
        h1 = side // 2
        r2, p2, w2 = self._conv_block(p1, "conv2", self.c1, self.c2, h1)
        h2 = h1 // 2
        features = self.c2 * h2 * h2
        z1 = cp.empty((n, self.hidden), f32)
        self._launch("linear_forward", z1.size, p2, self.p["fc1_w"], self.p["fc1_b"], z1, n, features, self.hidden)
        r3 = cp.empty_like(z1)
        self._launch("relu_forward", z1.size, z1, r3, z1.size)
        logits = cp.empty((n, self.classes), f32)
        self._launch("linear_forward", logits.size, r3, self.p["fc2_w"], self.p["fc2_b"], logits, n, self.hidden,
                     self.classes)
        s.update(r1=r1, p1=p1, w1=w1, r2=r2, p2=p2, w2=w2, r3=r3, h1=h1, h2=h2, features=features)
        self.saved = s
        return logits

    def loss(self, logits, labels):
        """The batch's mean loss (a float, through the host) and its gradient with respect to the logits."""
        cp = self.cp
        n = logits.shape[0]
        per_example = cp.empty(n, np.float32)
        dlogits = cp.empty_like(logits)
        self._launch("softmax_cross_entropy", n, logits, labels, per_example, dlogits, n, self.classes)
        return float(per_example.get().astype(np.float64).mean()), dlogits

    def backward(self, dlogits):
        """Every parameter's gradient, from the logits' (after forward)."""
        cp, f32, s = self.cp, np.float32, self.saved
        n, side, h1, h2, features = s["n"], s["side"], s["h1"], s["h2"], s["features"]
        g = {name: cp.empty(value.shape, f32) for name, value in self.p.items()}
        self._launch("linear_backward_weight", self.classes * self.hidden, s["r3"], dlogits, g["fc2_w"], g["fc2_b"], n,
                     self.hidden, self.classes)
        dr3 = cp.empty((n, self.hidden), f32)
        self._launch("linear_backward_input", dr3.size, dlogits, self.p["fc2_w"], dr3, n, self.hidden, self.classes)
        dz1 = cp.empty_like(dr3)
        self._launch("relu_backward", dz1.size, s["r3"], dr3, dz1, dz1.size)
        self._launch("linear_backward_weight", self.hidden * features, s["p2"], dz1, g["fc1_w"], g["fc1_b"], n,
                     features, self.hidden)
        dp2 = cp.empty((n, self.c2, h2, h2), f32)
        self._launch("linear_backward_input", dp2.size, dz1, self.p["fc1_w"], dp2, n, features, self.hidden)
        dr2 = cp.empty((n, self.c2, h1, h1), f32)
        self._launch("maxpool2_backward", dp2.size, dp2, s["w2"], dr2, n * self.c2, h1, h1)
        da2 = cp.empty_like(dr2)
        self._launch("relu_backward", da2.size, s["r2"], dr2, da2, da2.size)
        self._launch("conv3x3_backward_weight", self.c2 * self.c1 * 9, s["p1"], da2, g["conv2_w"], g["conv2_b"], n,
                     self.c1, self.c2, h1, h1)
        dp1 = cp.empty((n, self.c1, h1, h1), f32)
        self._launch("conv3x3_backward_input", dp1.size, da2, self.p["conv2_w"], dp1, n, self.c1, self.c2, h1, h1)
        dr1 = cp.empty((n, self.c1, side, side), f32)
        self._launch("maxpool2_backward", dp1.size, dp1, s["w1"], dr1, n * self.c1, side, side)
        da1 = cp.empty_like(dr1)
        self._launch("relu_backward", da1.size, s["r1"], dr1, da1, da1.size)
        self._launch("conv3x3_backward_weight", self.c1 * 3 * 9, s["x"], da1, g["conv1_w"], g["conv1_b"], n, 3,
                     self.c1, side, side)
        return g

    def step(self, x, labels, rate):
        """One SGD step on a batch; its loss before the step."""
        logits = self.forward(x)
        loss, dlogits = self.loss(logits, labels)
        grads = self.backward(dlogits)
        for name, w in self.p.items():
            self._launch("sgd_update", w.size, w, grads[name], np.float32(rate), w.size)
        return loss

    def accuracy(self, x, labels):
        predicted = self.forward(x).get().argmax(axis=1)
        return float((predicted == labels.get()).mean())
