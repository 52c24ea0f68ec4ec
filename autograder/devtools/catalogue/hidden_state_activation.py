"""Answers to `hidden_state_activation`: correct alternatives and known mistakes, one exercise each."""

from autograder.devtools.catalogue import Answer

CW, CS, F1, F2, SG, HS = (
    "concat_weights", "concat_state_input", "formula_1", "formula_2", "sigmoid", "hidden_state")


def _cw(body: str) -> str:
    return f"def concat_weights(w_hh, w_hx):\n{body}"


def _cs(body: str) -> str:
    return f"def concat_state_input(h_t_prev, x_t):\n{body}"


def _f(k: int, body: str) -> str:
    return f"def formula_{k}(w_hh, w_hx, h_t_prev, x_t):\n{body}"


def _sg(body: str) -> str:
    return f"def sigmoid(z):\n{body}"


def _hs(body: str) -> str:
    return f"def hidden_state(w_hh, w_hx, h_t_prev, x_t, b_h, formula=1, g=sigmoid):\n{body}"


# The pre-activation by either formula, as several hidden_state answers compute it.
_Z = "    z = formula_1(w_hh, w_hx, h_t_prev, x_t) if formula == 1 else formula_2(w_hh, w_hx, h_t_prev, x_t)\n"

CORRECT = [
    Answer(CW, "hstack", _cw(
        "    ### START CODE HERE ###\n    return np.hstack((w_hh, w_hx))\n    ### END CODE HERE ###")),
    Answer(CW, "concatenate-list", _cw("    return np.concatenate([w_hh, w_hx], axis=1)")),
    Answer(CW, "block", _cw("    return np.block([w_hh, w_hx])")),
    Answer(CW, "c_", _cw("    return np.c_[w_hh, w_hx]")),
    Answer(CW, "append", _cw("    return np.append(w_hh, w_hx, axis=1)")),
    Answer(CW, "preallocate", _cw(
        "    n_h = w_hh.shape[0]\n    out = np.zeros((n_h, w_hh.shape[1] + w_hx.shape[1]))\n"
        "    out[:, :w_hh.shape[1]] = w_hh\n    out[:, w_hh.shape[1]:] = w_hx\n    return out")),
    Answer(CW, "column-loop", _cw(
        "    columns = [w_hh[:, j] for j in range(w_hh.shape[1])] + [w_hx[:, j] for j in range(w_hx.shape[1])]\n"
        "    return np.stack(columns, axis=1)")),
    Answer(CW, "transpose-trick", _cw("    return np.vstack((w_hh.T, w_hx.T)).T")),
    Answer(CS, "vstack", _cs("    return np.vstack((h_t_prev, x_t))")),
    Answer(CS, "r_", _cs("    return np.r_[h_t_prev, x_t]")),
    Answer(CS, "block", _cs("    return np.block([[h_t_prev], [x_t]])")),
    Answer(CS, "append", _cs("    return np.append(h_t_prev, x_t, axis=0)")),
    Answer(CS, "preallocate", _cs(
        "    n_h = h_t_prev.shape[0]\n    out = np.empty((n_h + x_t.shape[0], x_t.shape[1]))\n"
        "    out[:n_h] = h_t_prev\n    out[n_h:] = x_t\n    return out")),
    Answer(CS, "row-list", _cs("    return np.array(list(h_t_prev) + list(x_t))")),
    Answer(F1, "dot", _f(1, "    return np.dot(concat_weights(w_hh, w_hx), concat_state_input(h_t_prev, x_t))")),
    Answer(F1, "matmul-inline", _f(1, "    return np.matmul(np.hstack((w_hh, w_hx)), np.vstack((h_t_prev, x_t)))")),
    Answer(F1, "einsum", _f(
        1, "    return np.einsum('ij,jk->ik', np.hstack((w_hh, w_hx)), np.vstack((h_t_prev, x_t)))")),
    Answer(F1, "loops", _f(1,
        "    W = concat_weights(w_hh, w_hx)\n    I = concat_state_input(h_t_prev, x_t)\n"
        "    out = np.zeros((W.shape[0], I.shape[1]))\n    for i in range(W.shape[0]):\n"
        "        for k in range(I.shape[1]):\n"
        "            out[i, k] = sum(W[i, j] * I[j, k] for j in range(W.shape[1]))\n"
        "    return out")),
    Answer(F1, "swapped-consistently", _f(1, "    return np.hstack((w_hx, w_hh)) @ np.vstack((x_t, h_t_prev))")),
    Answer(F2, "dot", _f(2, "    return np.dot(w_hh, h_t_prev) + np.dot(w_hx, x_t)")),
    Answer(F2, "matmul", _f(2, "    return np.add(np.matmul(w_hh, h_t_prev), np.matmul(w_hx, x_t))")),
    Answer(F2, "einsum", _f(
        2, "    return np.einsum('ij,jk->ik', w_hh, h_t_prev) + np.einsum('ij,jk->ik', w_hx, x_t)")),
    Answer(F2, "float-result", _f(2, "    return (w_hh @ h_t_prev + w_hx @ x_t).astype(float)")),
    Answer(SG, "naive", _sg("    return 1 / (1 + np.exp(-z))")),
    Answer(SG, "stable-where", _sg(
        "    z = np.asarray(z, dtype=float)\n    e = np.exp(-np.abs(z))\n"
        "    return np.where(z >= 0, 1 / (1 + e), e / (1 + e))")),
    Answer(SG, "tanh-identity", _sg("    return 0.5 * (1 + np.tanh(0.5 * np.asarray(z, dtype=float)))")),
    Answer(SG, "clip", _sg("    z = np.clip(z, -500, 500)\n    return 1.0 / (1.0 + np.exp(-z))")),
    Answer(SG, "logaddexp", _sg("    return np.exp(-np.logaddexp(0, -z))")),
    Answer(SG, "reciprocal", _sg("    return np.reciprocal(1.0 + np.exp(-np.asarray(z, dtype=float)))")),
    Answer(HS, "if-else", _hs(
        "    if formula == 1:\n        z = formula_1(w_hh, w_hx, h_t_prev, x_t)\n    else:\n"
        "        z = formula_2(w_hh, w_hx, h_t_prev, x_t)\n    return g(z + b_h)")),
    Answer(HS, "dict-dispatch", _hs(
        "    product = {1: formula_1, 2: formula_2}[formula](w_hh, w_hx, h_t_prev, x_t)\n"
        "    return g(np.add(product, b_h))")),
    Answer(HS, "inline", _hs(
        "    if formula == 1:\n        z = np.hstack((w_hh, w_hx)) @ np.vstack((h_t_prev, x_t))\n"
        "    else:\n        z = w_hh @ h_t_prev + w_hx @ x_t\n    z = z + b_h\n    return g(z)")),
    Answer(HS, "float-bias-tile", _hs(
        _Z + "    return g(z + np.tile(b_h, (1, z.shape[1])))")),
]

WRONG = [
    Answer(CW, "axis-0", _cw("    return np.concatenate((w_hh, w_hx), axis=0)"), "wrong_axis"),
    Answer(CW, "vstack", _cw("    return np.vstack((w_hh, w_hx))"), "wrong_axis"),
    Answer(CW, "blocks-swapped", _cw("    return np.hstack((w_hx, w_hh))"), "block_order"),
    Answer(CW, "transposed", _cw("    return np.vstack((w_hh.T, w_hx.T))"), "transposed"),
    Answer(CW, "hard-coded", _cw("    return np.array([[1, 1, 9, 9, 9]] * 3)")),
    Answer(CS, "axis-1", _cs("    return np.concatenate((h_t_prev, x_t), axis=1)"), "wrong_axis"),
    Answer(CS, "hstack", _cs("    return np.hstack((h_t_prev, x_t))"), "wrong_axis"),
    Answer(CS, "x-first", _cs("    return np.vstack((x_t, h_t_prev))"), "block_order"),
    Answer(CS, "transposed", _cs("    return np.hstack((h_t_prev.T, x_t.T))"), "transposed"),
    Answer(CS, "flattened", _cs("    return np.concatenate((h_t_prev.ravel(), x_t.ravel()))"), "flattened"),
    Answer(F1, "elementwise", _f(1, "    return concat_weights(w_hh, w_hx) * concat_state_input(h_t_prev, x_t)"),
           "elementwise_product"),
    Answer(F1, "blocks-swapped", _f(1, "    return np.hstack((w_hx, w_hh)) @ np.vstack((h_t_prev, x_t))"),
           "block_order"),
    Answer(F1, "mixed-orders", _f(1, "    return np.hstack((w_hh, w_hx)) @ np.vstack((x_t, h_t_prev))"),
           "mixed_stack_order"),
    Answer(F1, "transposed", _f(1, "    return np.vstack((h_t_prev, x_t)).T @ np.hstack((w_hh, w_hx)).T"),
           "transposed"),
    Answer(F1, "hard-coded-245", _f(1, "    return np.full((3, 1), 245)")),
    Answer(F2, "elementwise", _f(2, "    return w_hh * h_t_prev + w_hx * x_t"), "elementwise_product"),
    Answer(F2, "inputs-swapped", _f(2, "    return w_hh @ x_t + w_hx @ h_t_prev"), "block_order"),
    Answer(F2, "transposed", _f(2, "    return h_t_prev.T @ w_hh.T + x_t.T @ w_hx.T"), "transposed"),
    Answer(SG, "sign-flipped", _sg("    return 1 / (1 + np.exp(z))"), "sigmoid_sign"),
    Answer(SG, "tanh", _sg("    return np.tanh(z)"), "tanh_for_sigmoid"),
    Answer(SG, "overflows-to-nan", _sg("    return np.exp(z) / (1 + np.exp(z))"), "sigmoid_overflow"),
    Answer(SG, "in-place", _sg(
        "    z = np.asarray(z, dtype=float)\n    np.negative(z, out=z)\n    np.exp(z, out=z)\n"
        "    z += 1\n    np.reciprocal(z, out=z)\n    return z"), "modifies_input"),
    Answer(HS, "bias-after-g", _hs(
        _Z + "    return g(z) + b_h"), "bias_after_activation"),
    Answer(HS, "no-bias", _hs(
        _Z + "    return g(z)"), "bias_missing"),
    Answer(HS, "ignores-g", _hs(
        _Z + "    return sigmoid(z + b_h)"), "ignores_activation"),
    Answer(HS, "no-activation", _hs(
        _Z + "    return z + b_h"), "activation_missing"),
    Answer(HS, "1-d-bias", _hs(
        _Z + "    return g(z + b_h.ravel())"), "broadcast_1d"),
    Answer(HS, "elementwise", _hs("    return g(w_hh * h_t_prev + w_hx * x_t + b_h)"), "elementwise_product"),
]
