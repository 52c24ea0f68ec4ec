"""Answers to `rnn_update_equations`: correct alternatives and known mistakes, one exercise each."""

from textwrap import dedent, indent

from autograder.devtools.catalogue import Answer

SIGNATURES = {
    "rnn_step": "rnn_step(x_t, h_prev, W_xh, W_hh, b_h, phi=np.tanh)",
    "rnn_output": "rnn_output(h_t, W_hy, b_y)",
    "stack_params": "stack_params(W_xh, W_hh)",
    "stack_inputs": "stack_inputs(x_t, h_prev)",
    "rnn_step_stacked": "rnn_step_stacked(I, W, b_h, phi=np.tanh)",
    "rnn_forward": "rnn_forward(xs, h0, W_xh, W_hh, b_h, W_hy, b_y, phi=np.tanh)",
    "stacked_rnn_forward": "stacked_rnn_forward(xs, layers, h0s=None, phi=np.tanh)",
    "sequence_loss": "sequence_loss(y_hat, y, many_to_many=True)",
    "count_parameters": "count_parameters(n_x, n_h, n_y)",
}


def _code(exercise: str, body: str, before: str = "") -> str:
    """`def <signature>:` with `body` indented under it, after any helper code in `before`."""
    head = dedent(before).strip("\n") + "\n\n\n" if before else ""
    return f"{head}def {SIGNATURES[exercise]}:\n{indent(dedent(body).strip(chr(10)), '    ')}"


def ok(exercise: str, name: str, body: str, before: str = "") -> Answer:
    return Answer(exercise, name, _code(exercise, body, before))


def bad(exercise: str, name: str, body: str, hint: str | None, before: str = "") -> Answer:
    return Answer(exercise, name, _code(exercise, body, before), hint)


RS, RO, SP, SI, RSS, RF, SRF, SL, CP = SIGNATURES

CORRECT = [
    # --- rnn_step
    ok(RS, "at", """
        ### START CODE HERE ###
        h_t = phi(W_xh @ x_t + W_hh @ h_prev + b_h)
        ### END CODE HERE ###
        return h_t
    """),
    ok(RS, "matmul-recurrent-first", "return phi(np.matmul(W_hh, h_prev) + np.matmul(W_xh, x_t) + b_h)"),
    ok(RS, "einsum", "return phi(np.einsum('ij,jk->ik', W_xh, x_t) + np.einsum('ij,jk->ik', W_hh, h_prev) + b_h)"),
    ok(RS, "one-product-x-first", "return phi(np.hstack((W_xh, W_hh)) @ np.vstack((x_t, h_prev)) + b_h)"),
    ok(RS, "one-product-h-first", "return phi(np.hstack((W_hh, W_xh)) @ np.vstack((h_prev, x_t)) + b_h)"),
    ok(RS, "float-and-tiled-bias", """
        z = W_xh.astype(float) @ x_t + W_hh.astype(float) @ h_prev
        z = z + np.tile(b_h, (1, z.shape[1]))
        return phi(z)
    """),
    ok(RS, "column-loop", """
        columns = []
        for i in range(x_t.shape[1]):
            z = W_xh @ x_t[:, i:i + 1] + W_hh @ h_prev[:, i:i + 1] + b_h
            columns.append(z)
        return phi(np.hstack(columns))
    """),
    # --- rnn_output
    ok(RO, "dot", "return np.dot(W_hy, h_t) + b_y"),
    ok(RO, "at", "return W_hy @ h_t + b_y"),
    ok(RO, "einsum", "return np.einsum('yh,hm->ym', W_hy, h_t) + b_y"),
    ok(RO, "add-float", "return np.add(W_hy @ h_t, b_y).astype(float)"),
    ok(RO, "row-loop", """
        rows = [W_hy[k] @ h_t + b_y[k, 0] for k in range(W_hy.shape[0])]
        return np.array(rows)
    """),
    # --- stack_params
    ok(SP, "hstack", "return np.hstack((W_xh, W_hh))"),
    ok(SP, "concatenate-list", "return np.concatenate([W_xh, W_hh], axis=1)"),
    ok(SP, "block", "return np.block([W_xh, W_hh])"),
    ok(SP, "c_", "return np.c_[W_xh, W_hh]"),
    ok(SP, "append", "return np.append(W_xh, W_hh, axis=1)"),
    ok(SP, "preallocate", """
        n_h, n_x = W_xh.shape
        W = np.zeros((n_h, n_x + n_h))
        W[:, :n_x] = W_xh
        W[:, n_x:] = W_hh
        return W
    """),
    ok(SP, "transpose-trick", "return np.vstack((W_xh.T, W_hh.T)).T"),
    # --- stack_inputs
    ok(SI, "vstack", "return np.vstack((x_t, h_prev))"),
    ok(SI, "r_", "return np.r_[x_t, h_prev]"),
    ok(SI, "block", "return np.block([[x_t], [h_prev]])"),
    ok(SI, "append", "return np.append(x_t, h_prev, axis=0)"),
    ok(SI, "preallocate", """
        n_x = x_t.shape[0]
        I = np.empty((n_x + h_prev.shape[0], x_t.shape[1]))
        I[:n_x] = x_t
        I[n_x:] = h_prev
        return I
    """),
    ok(SI, "row-list", "return np.array(list(x_t) + list(h_prev))"),
    # --- rnn_step_stacked
    ok(RSS, "dot", "return phi(np.dot(W, I) + b_h)"),
    ok(RSS, "matmul", "return phi(np.add(np.matmul(W, I), b_h))"),
    ok(RSS, "einsum", "return phi(np.einsum('hk,km->hm', W, I) + b_h)"),
    ok(RSS, "split-blocks", """
        n_h = W.shape[0]
        n_x = W.shape[1] - n_h
        return phi(W[:, :n_x] @ I[:n_x] + W[:, n_x:] @ I[n_x:] + b_h)
    """),
    # The previous lecture's order in BOTH stacking functions agrees with itself: the composed step is right.
    ok(RSS, "both-stacks-h-first", "return phi(W @ I + b_h)", before="""
        def stack_params(W_xh, W_hh):
            return np.hstack((W_hh, W_xh))


        def stack_inputs(x_t, h_prev):
            return np.vstack((h_prev, x_t))
    """),
    # --- rnn_forward
    ok(RF, "preallocate", """
        T, m = xs.shape[0], xs.shape[2]
        hs = np.zeros((T, W_hh.shape[0], m))
        ys = np.zeros((T, W_hy.shape[0], m))
        h = h0
        for t in range(T):
            h = rnn_step(xs[t], h, W_xh, W_hh, b_h, phi)
            hs[t] = h
            ys[t] = rnn_output(h, W_hy, b_y)
        return hs, ys
    """),
    ok(RF, "inline-equations-np-array", """
        h = h0
        hs, ys = [], []
        for t in range(len(xs)):
            h = phi(np.dot(W_xh, xs[t]) + np.dot(W_hh, h) + b_h)
            hs.append(h)
            ys.append(np.dot(W_hy, h) + b_y)
        return np.array(hs), np.array(ys)
    """),
    ok(RF, "states-then-outputs-einsum", """
        states = []
        h = h0
        for x_t in xs:
            h = rnn_step(x_t, h, W_xh, W_hh, b_h, phi=phi)
            states.append(h)
        hs = np.stack(states)
        ys = np.einsum('yh,thm->tym', W_hy, hs) + b_y
        return hs, ys
    """),
    ok(RF, "outputs-by-broadcast-matmul", """
        hs = []
        h = h0
        for x_t in xs:
            h = rnn_step(x_t, h, W_xh, W_hh, b_h, phi)
            hs.append(h)
        hs = np.stack(hs, axis=0)
        return hs, W_hy @ hs + b_y
    """),
    ok(RF, "pseudo-matrix-form", """
        W = stack_params(W_xh, W_hh)
        h = h0
        hs, ys = [], []
        for x_t in xs:
            h = rnn_step_stacked(stack_inputs(x_t, h), W, b_h, phi)
            hs.append(h)
            ys.append(rnn_output(h, W_hy, b_y))
        return np.stack(hs), np.stack(ys)
    """),
    ok(RF, "while-loop-tuple-list", """
        t, h, hs, ys = 0, h0, [], []
        while t < xs.shape[0]:
            h = rnn_step(xs[t], h, W_xh, W_hh, b_h, phi)
            hs.append(h)
            ys.append(rnn_output(h, W_hy, b_y))
            t += 1
        return (np.array(hs), np.array(ys))
    """),
    ok(RF, "copy-then-fill-in-place", """
        h = h0.astype(float)  # a copy: filling it in place leaves h0 alone
        hs, ys = [], []
        for x_t in xs:
            h[...] = rnn_step(x_t, h, W_xh, W_hh, b_h, phi)
            hs.append(h.copy())
            ys.append(rnn_output(h, W_hy, b_y))
        return np.stack(hs), np.stack(ys)
    """),
    # --- stacked_rnn_forward
    ok(SRF, "step-by-step", """
        T, m = xs.shape[0], xs.shape[2]
        if h0s is None:
            h = [np.zeros((layer["W_hh"].shape[0], m)) for layer in layers]
        else:
            h = list(h0s)
        states = [[] for _ in layers]
        for t in range(T):
            below = xs[t]
            for l, layer in enumerate(layers):
                h[l] = rnn_step(below, h[l], layer["W_xh"], layer["W_hh"], layer["b_h"], phi)
                states[l].append(h[l])
                below = h[l]
        return [np.stack(s) for s in states]
    """),
    ok(SRF, "layer-by-layer-with-rnn_forward", """
        m = xs.shape[2]
        outputs, sequence = [], xs
        for l, layer in enumerate(layers):
            n_h = layer["W_hh"].shape[0]
            h0 = np.zeros((n_h, m)) if h0s is None else h0s[l]
            hs, _ = rnn_forward(sequence, h0, layer["W_xh"], layer["W_hh"], layer["b_h"],
                                np.zeros((1, n_h)), np.zeros((1, 1)), phi)
            outputs.append(hs)
            sequence = hs
        return outputs
    """),
    ok(SRF, "preallocate", """
        T, _, m = xs.shape
        result = []
        below = xs
        for l in range(len(layers)):
            W_xh, W_hh, b_h = layers[l]["W_xh"], layers[l]["W_hh"], layers[l]["b_h"]
            hs = np.zeros((T, W_hh.shape[0], m))
            h = np.zeros((W_hh.shape[0], m)) if h0s is None else h0s[l]
            for t in range(T):
                h = phi(W_xh @ below[t] + W_hh @ h + b_h)
                hs[t] = h
            result.append(hs)
            below = hs
        return result
    """),
    ok(SRF, "zero-column-broadcasts", """
        below, result = xs, []
        for l, layer in enumerate(layers):
            h = np.zeros((layer["b_h"].shape[0], 1)) if h0s is None else h0s[l]
            hs = []
            for x_t in below:
                h = rnn_step(x_t, h, layer["W_xh"], layer["W_hh"], layer["b_h"], phi)
                hs.append(h)
            below = np.stack(hs)
            result.append(below)
        return result
    """),
    ok(SRF, "pseudo-matrix-zip", """
        m = xs.shape[2]
        starts = h0s if h0s is not None else [np.zeros((p["W_hh"].shape[0], m)) for p in layers]
        result, below = [], xs
        for p, h in zip(layers, starts):
            W = stack_params(p["W_xh"], p["W_hh"])
            hs = []
            for x_t in below:
                h = rnn_step_stacked(stack_inputs(x_t, h), W, p["b_h"], phi)
                hs.append(h)
            below = np.array(hs)
            result.append(below)
        return result
    """),
    ok(SRF, "tuple-of-layers", """
        m = xs.shape[2]
        result, below = [], xs
        for l, p in enumerate(layers):
            h = h0s[l] if h0s else np.zeros((len(p["b_h"]), m))
            hs = np.empty((len(below), len(p["b_h"]), m))
            for t, x_t in enumerate(below):
                h = rnn_step(x_t, h, p["W_xh"], p["W_hh"], p["b_h"], phi)
                hs[t] = h
            result.append(hs)
            below = hs
        return tuple(result)
    """),
    # --- sequence_loss
    ok(SL, "numpy-scalar", """
        d = (y_hat - y) ** 2
        per_example = d.sum(axis=(0, 1)) if many_to_many else d[-1].sum(axis=0)
        return per_example.mean()
    """),
    ok(SL, "zero-d-array", """
        per_step = np.square(y_hat - y).sum(axis=1)
        chosen = per_step if many_to_many else per_step[-1:]
        return np.array(chosen.sum(axis=0).mean())
    """),
    ok(SL, "loops", """
        T, n_y, m = y_hat.shape
        steps = range(T) if many_to_many else [T - 1]
        total = 0.0
        for i in range(m):
            for t in steps:
                for k in range(n_y):
                    total += (y_hat[t, k, i] - y[t, k, i]) ** 2
        return total / m
    """),
    ok(SL, "einsum", """
        d = (y_hat - y).astype(float)
        if not many_to_many:
            d = d[-1:]
        return float(np.einsum('tkm,tkm->m', d, d).mean())
    """),
    ok(SL, "sum-divide-by-m", """
        m = y.shape[2]
        if many_to_many:
            return float(np.sum((y_hat - y) ** 2) / m)
        return float(np.sum((y_hat[-1] - y[-1]) ** 2) / m)
    """),
    ok(SL, "mean-over-examples-first", """
        sq = (y_hat - y) ** 2
        if not many_to_many:
            sq = sq[[-1]]
        return float(np.sum(np.mean(sq, axis=2)))
    """),
    # --- count_parameters
    ok(CP, "factored", "return n_h * (n_x + n_h + 1) + n_y * (n_h + 1)"),
    ok(CP, "numpy-int-from-shapes", """
        shapes = [(n_h, n_x), (n_h, n_h), (n_h, 1), (n_y, n_h), (n_y, 1)]
        return np.sum([np.prod(s) for s in shapes])
    """),
    ok(CP, "count-real-arrays", """
        arrays = [np.zeros((n_h, n_x)), np.zeros((n_h, n_h)), np.zeros((n_h, 1)), np.zeros((n_y, n_h)),
                  np.zeros((n_y, 1))]
        return sum(a.size for a in arrays)
    """),
    ok(CP, "hidden-plus-output", """
        hidden = n_h * n_x + n_h * n_h + n_h
        output = n_y * n_h + n_y
        return int(hidden + output)
    """),
]

WRONG = [
    # --- rnn_step
    bad(RS, "elementwise", "return phi(W_xh * x_t + W_hh * h_prev + b_h)", "elementwise_product"),
    bad(RS, "weights-swapped", "return phi(W_xh @ h_prev + W_hh @ x_t + b_h)", "block_order"),
    bad(RS, "mixed-stack-orders", "return phi(np.hstack((W_xh, W_hh)) @ np.vstack((h_prev, x_t)) + b_h)",
        "mixed_stack_order"),
    bad(RS, "bias-after-phi", "return phi(W_xh @ x_t + W_hh @ h_prev) + b_h", "bias_after_activation"),
    bad(RS, "no-bias", "return phi(W_xh @ x_t + W_hh @ h_prev)", "bias_missing"),
    bad(RS, "always-tanh", "return np.tanh(W_xh @ x_t + W_hh @ h_prev + b_h)", "ignores_activation"),
    bad(RS, "no-activation", "return W_xh @ x_t + W_hh @ h_prev + b_h", "activation_missing"),
    bad(RS, "1-d-bias", "return phi(W_xh @ x_t + W_hh @ h_prev + b_h.ravel())", "broadcast_1d"),
    bad(RS, "transposed", "return phi(x_t.T @ W_xh.T + h_prev.T @ W_hh.T + b_h.T)", "transposed"),
    bad(RS, "writes-into-h_prev", """
        h_prev[...] = phi(W_xh @ x_t + W_hh @ h_prev + b_h)
        return h_prev
    """, "modifies_input"),
    bad(RS, "hard-coded-example", "return np.tanh(np.array([[2], [1], [3]]))", None),
    # --- rnn_output
    bad(RO, "tanh-output", "return np.tanh(W_hy @ h_t + b_y)", "output_activation"),
    bad(RO, "no-bias", "return W_hy @ h_t", "output_bias_missing"),
    bad(RO, "elementwise", "return W_hy * h_t + b_y", "elementwise_product"),
    bad(RO, "transposed", "return h_t.T @ W_hy.T + b_y.T", "transposed"),
    bad(RO, "1-d-bias", "return W_hy @ h_t + b_y[:, 0]", "broadcast_1d"),
    # --- stack_params
    bad(SP, "vstack", "return np.vstack((W_xh, W_hh))", "wrong_axis"),
    bad(SP, "axis-0", "return np.concatenate((W_xh, W_hh), axis=0)", "wrong_axis"),
    bad(SP, "h-first", "return np.hstack((W_hh, W_xh))", "block_order"),
    bad(SP, "transposed", "return np.vstack((W_xh.T, W_hh.T))", "transposed"),
    # --- stack_inputs
    bad(SI, "hstack", "return np.hstack((x_t, h_prev))", "wrong_axis"),
    bad(SI, "axis-1", "return np.concatenate((x_t, h_prev), axis=1)", "wrong_axis"),
    bad(SI, "h-first", "return np.vstack((h_prev, x_t))", "block_order"),
    bad(SI, "transposed", "return np.hstack((x_t.T, h_prev.T))", "transposed"),
    bad(SI, "flattened", "return np.concatenate((x_t.ravel(), h_prev.ravel()))", "flattened"),
    # --- rnn_step_stacked
    bad(RSS, "elementwise", "return phi(W * I + b_h)", "elementwise_product"),
    bad(RSS, "bias-after-phi", "return phi(W @ I) + b_h", "bias_after_activation"),
    bad(RSS, "no-bias", "return phi(W @ I)", "bias_missing"),
    bad(RSS, "always-tanh", "return np.tanh(W @ I + b_h)", "ignores_activation"),
    bad(RSS, "no-activation", "return W @ I + b_h", "activation_missing"),
    bad(RSS, "1-d-bias", "return phi(W @ I + b_h.flatten())", "broadcast_1d"),
    bad(RSS, "transposed", "return phi(I.T @ W.T + b_h.T)", "transposed"),
    # A student who went back to the previous lecture's order for the inputs only.
    bad(RSS, "inputs-restacked-h-first", "return phi(W @ I + b_h)", "mixed_stack_order", before="""
        def stack_inputs(x_t, h_prev):
            return np.vstack((h_prev, x_t))
    """),
    # --- rnn_forward
    bad(RF, "state-not-carried", """
        hs = [rnn_step(x_t, h0, W_xh, W_hh, b_h, phi) for x_t in xs]
        ys = [rnn_output(h, W_hy, b_y) for h in hs]
        return np.stack(hs), np.stack(ys)
    """, "state_not_carried"),
    bad(RF, "state-reset-every-step", """
        hs, ys = [], []
        for x_t in xs:
            h = np.zeros_like(h0)
            h = rnn_step(x_t, h, W_xh, W_hh, b_h, phi)
            hs.append(h)
            ys.append(rnn_output(h, W_hy, b_y))
        return np.stack(hs), np.stack(ys)
    """, "state_reset"),
    bad(RF, "starts-from-zeros", """
        h = np.zeros(h0.shape)
        hs, ys = [], []
        for x_t in xs:
            h = rnn_step(x_t, h, W_xh, W_hh, b_h, phi)
            hs.append(h)
            ys.append(rnn_output(h, W_hy, b_y))
        return np.stack(hs), np.stack(ys)
    """, "h0_ignored"),
    bad(RF, "records-state-before-step", """
        h = h0
        hs, ys = [], []
        for x_t in xs:
            hs.append(h)
            ys.append(rnn_output(h, W_hy, b_y))
            h = rnn_step(x_t, h, W_xh, W_hh, b_h, phi)
        return np.stack(hs), np.stack(ys)
    """, "states_off_by_one"),
    bad(RF, "h0-included", """
        hs, ys = [h0], []
        for x_t in xs:
            hs.append(rnn_step(x_t, hs[-1], W_xh, W_hh, b_h, phi))
            ys.append(rnn_output(hs[-1], W_hy, b_y))
        return np.stack(hs), np.stack(ys)
    """, "states_off_by_one"),
    bad(RF, "outputs-from-previous-state", """
        h = h0
        hs, ys = [], []
        for x_t in xs:
            ys.append(rnn_output(h, W_hy, b_y))
            h = rnn_step(x_t, h, W_xh, W_hh, b_h, phi)
            hs.append(h)
        return np.stack(hs), np.stack(ys)
    """, "states_off_by_one"),
    bad(RF, "tanh-on-outputs", """
        h = h0
        hs, ys = [], []
        for x_t in xs:
            h = rnn_step(x_t, h, W_xh, W_hh, b_h, phi)
            hs.append(h)
            ys.append(np.tanh(rnn_output(h, W_hy, b_y)))
        return np.stack(hs), np.stack(ys)
    """, "output_activation"),
    bad(RF, "phi-not-passed-on", """
        h = h0
        hs, ys = [], []
        for x_t in xs:
            h = rnn_step(x_t, h, W_xh, W_hh, b_h)
            hs.append(h)
            ys.append(rnn_output(h, W_hy, b_y))
        return np.stack(hs), np.stack(ys)
    """, "ignores_activation"),
    bad(RF, "weights-swapped", """
        h = h0
        hs, ys = [], []
        for x_t in xs:
            h = phi(W_xh @ h + W_hh @ x_t + b_h)
            hs.append(h)
            ys.append(W_hy @ h + b_y)
        return np.stack(hs), np.stack(ys)
    """, "block_order"),
    bad(RF, "fills-h0-in-place", """
        T, m = xs.shape[0], xs.shape[2]
        hs, ys = np.zeros((T, h0.shape[0], m)), np.zeros((T, W_hy.shape[0], m))
        h = h0
        for t in range(T):
            np.copyto(h, rnn_step(xs[t], h, W_xh, W_hh, b_h, phi), casting="unsafe")
            hs[t], ys[t] = h, rnn_output(h, W_hy, b_y)
        return hs, ys
    """, "modifies_input"),
    bad(RF, "states-only", """
        h, hs = h0, []
        for x_t in xs:
            h = rnn_step(x_t, h, W_xh, W_hh, b_h, phi)
            hs.append(h)
        return np.stack(hs)
    """, None),
    # --- stacked_rnn_forward
    bad(SRF, "every-layer-reads-x", """
        m = xs.shape[2]
        result = []
        for l, p in enumerate(layers):
            h = np.zeros((p["W_hh"].shape[0], m)) if h0s is None else h0s[l]
            hs = []
            for x_t in xs:
                h = rnn_step(x_t, h, p["W_xh"], p["W_hh"], p["b_h"], phi)
                hs.append(h)
            result.append(np.stack(hs))
        return result
    """, "upper_layer_fed_x"),
    bad(SRF, "first-layer-weights-everywhere", """
        m = xs.shape[2]
        W_xh, W_hh, b_h = layers[0]["W_xh"], layers[0]["W_hh"], layers[0]["b_h"]
        result, below = [], xs
        for l in range(len(layers)):
            h = np.zeros((W_hh.shape[0], m)) if h0s is None else h0s[l]
            hs = []
            for x_t in below:
                h = rnn_step(x_t, h, W_xh, W_hh, b_h, phi)
                hs.append(h)
            below = np.stack(hs)
            result.append(below)
        return result
    """, "shared_weights"),
    bad(SRF, "one-state-for-all-layers", """
        m = xs.shape[2]
        h = np.zeros((layers[0]["W_hh"].shape[0], m)) if h0s is None else h0s[0]
        states = [[] for _ in layers]
        for x_t in xs:
            below = x_t
            for l, p in enumerate(layers):
                h = rnn_step(below, h, p["W_xh"], p["W_hh"], p["b_h"], phi)
                states[l].append(h)
                below = h
        return [np.stack(s) for s in states]
    """, "layer_state_shared"),
    bad(SRF, "state-not-carried", """
        m = xs.shape[2]
        result, below = [], xs
        for l, p in enumerate(layers):
            h0 = np.zeros((p["W_hh"].shape[0], m)) if h0s is None else h0s[l]
            hs = np.stack([rnn_step(x_t, h0, p["W_xh"], p["W_hh"], p["b_h"], phi) for x_t in below])
            result.append(hs)
            below = hs
        return result
    """, "state_not_carried"),
    bad(SRF, "initial-states-ignored", """
        m = xs.shape[2]
        result, below = [], xs
        for p in layers:
            h = np.zeros((p["W_hh"].shape[0], m))
            hs = []
            for x_t in below:
                h = rnn_step(x_t, h, p["W_xh"], p["W_hh"], p["b_h"], phi)
                hs.append(h)
            below = np.stack(hs)
            result.append(below)
        return result
    """, "h0_ignored"),
    bad(SRF, "phi-not-passed-on", """
        m = xs.shape[2]
        result, below = [], xs
        for l, p in enumerate(layers):
            h = np.zeros((p["W_hh"].shape[0], m)) if h0s is None else h0s[l]
            hs = []
            for x_t in below:
                h = rnn_step(x_t, h, p["W_xh"], p["W_hh"], p["b_h"])
                hs.append(h)
            below = np.stack(hs)
            result.append(below)
        return result
    """, "ignores_activation"),
    bad(SRF, "saves-final-states-into-h0s", """
        m = xs.shape[2]
        result, below = [], xs
        for l, p in enumerate(layers):
            h = np.zeros((p["W_hh"].shape[0], m)) if h0s is None else h0s[l]
            hs = []
            for x_t in below:
                h = rnn_step(x_t, h, p["W_xh"], p["W_hh"], p["b_h"], phi)
                hs.append(h)
            if h0s is not None:
                h0s[l] = h
            below = np.stack(hs)
            result.append(below)
        return result
    """, "modifies_input"),
    bad(SRF, "top-layer-only", """
        m = xs.shape[2]
        below = xs
        for l, p in enumerate(layers):
            h = np.zeros((p["W_hh"].shape[0], m)) if h0s is None else h0s[l]
            hs = []
            for x_t in below:
                h = rnn_step(x_t, h, p["W_xh"], p["W_hh"], p["b_h"], phi)
                hs.append(h)
            below = np.stack(hs)
        return below
    """, "not_a_sequence"),
    # --- sequence_loss
    bad(SL, "mean-over-time", """
        per_step = ((y_hat - y) ** 2).sum(axis=1)
        per_example = per_step.mean(axis=0) if many_to_many else per_step[-1]
        return float(per_example.mean())
    """, "mean_over_time"),
    bad(SL, "sum-over-examples", """
        per_step = ((y_hat - y) ** 2).sum(axis=1)
        per_example = per_step.sum(axis=0) if many_to_many else per_step[-1]
        return float(per_example.sum())
    """, "sum_over_examples"),
    bad(SL, "mean-over-units", """
        per_step = ((y_hat - y) ** 2).mean(axis=1)
        per_example = per_step.sum(axis=0) if many_to_many else per_step[-1]
        return float(per_example.mean())
    """, "mean_over_units"),
    bad(SL, "mean-of-everything", """
        if many_to_many:
            return float(np.mean((y_hat - y) ** 2))
        return float(np.mean((y_hat[-1] - y[-1]) ** 2))
    """, "mean_over_all"),
    bad(SL, "not-squared", """
        per_step = (y_hat - y).sum(axis=1)
        per_example = per_step.sum(axis=0) if many_to_many else per_step[-1]
        return float(per_example.mean())
    """, "not_squared"),
    bad(SL, "absolute-error", """
        per_step = np.abs(y_hat - y).sum(axis=1)
        per_example = per_step.sum(axis=0) if many_to_many else per_step[-1]
        return float(per_example.mean())
    """, "absolute_error"),
    bad(SL, "flag-ignored", "return float(((y_hat - y) ** 2).sum(axis=(0, 1)).mean())", "last_step_ignored"),
    bad(SL, "first-step-for-many-to-one", """
        per_step = ((y_hat - y) ** 2).sum(axis=1)
        per_example = per_step.sum(axis=0) if many_to_many else per_step[0]
        return float(per_example.mean())
    """, "first_step_instead_of_last"),
    bad(SL, "per-example-losses", """
        per_step = ((y_hat - y) ** 2).sum(axis=1)
        return per_step.sum(axis=0) if many_to_many else per_step[-1]
    """, "not_an_array"),
    bad(SL, "subtracts-in-place", """
        y_hat -= y
        per_step = (y_hat ** 2).sum(axis=1)
        per_example = per_step.sum(axis=0) if many_to_many else per_step[-1]
        return float(per_example.mean())
    """, "modifies_input"),
    # --- count_parameters
    bad(CP, "no-biases", "return n_h * n_x + n_h * n_h + n_y * n_h", "count_missing_bias"),
    bad(CP, "no-recurrent", "return n_h * n_x + n_h + n_y * n_h + n_y", "count_missing_recurrent"),
    bad(CP, "no-output", "return n_h * n_x + n_h * n_h + n_h", "count_missing_output"),
    bad(CP, "output-bias-forgotten", "return n_h * n_x + n_h * n_h + n_h + n_y * n_h", None),
    bad(CP, "hard-coded-42", "return 42", None),
]
