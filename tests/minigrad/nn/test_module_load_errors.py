"""``Module.load`` on a file it cannot use (issue 31): a truncated copy, garbage, a pickle,
a lone ``.npy`` array, or a model of another shape.  Each error names the file and what was
expected, never advises ``allow_pickle``, and leaves every weight as it was."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import nn


def net(hidden=3, seed=0):
    return nn.Sequential(nn.Linear(2, hidden, seed=seed), nn.BatchNorm1d(hidden),
                         nn.Linear(hidden, 1, seed=seed + 1))


def snapshot(model):
    return {k: v.copy() for k, v in model.state_dict().items()}


def assert_unchanged(model, before):
    after = model.state_dict()
    assert after.keys() == before.keys()
    for key in before:
        np.testing.assert_array_equal(after[key], before[key], err_msg=key)


@pytest.fixture
def saved(tmp_path):
    return net(seed=7).save(tmp_path / "model.npz")


def damaged_files(saved, tmp_path):
    whole = open(saved, "rb").read()
    cases = {
        "truncated_half": whole[: len(whole) // 2],
        "truncated_last_byte": whole[:-1],
        "truncated_header": whole[:10],
        "garbage": b"this is not a model, just some text\n" * 20,
        "empty": b"",
    }
    for name, content in cases.items():
        path = tmp_path / f"{name}.npz"
        path.write_bytes(content)
        yield name, path


def test_a_damaged_file_names_itself_says_damaged_and_changes_no_weight(saved, tmp_path):
    model = net(seed=0)
    before = snapshot(model)
    for name, path in damaged_files(saved, tmp_path):
        with pytest.raises(nn.ModelFileError) as err:
            model.load(path)
        message = str(err.value)
        assert str(path) in message, name
        assert ("damaged" in message or "empty" in message), name
        assert "expected a .npz archive" in message and "Module.save" in message, name
        assert "allow_pickle" not in message, name
        # no chained traceback from inside numpy or zipfile
        assert err.value.__cause__ is None, name
        assert err.value.__context__ is None or err.value.__suppress_context__, name
        assert_unchanged(model, before)


def test_a_file_of_pickled_objects_is_refused_without_advice_to_unpickle(tmp_path):
    path = tmp_path / "objects.npz"
    np.savez(path, **{"0.weight": np.array([{"x": 1}], dtype=object)})
    model = net()
    before = snapshot(model)
    with pytest.raises(nn.ModelFileError, match="Python objects") as err:
        model.load(path)
    assert str(path) in str(err.value) and "allow_pickle" not in str(err.value)
    assert "never unpickled" in str(err.value)
    assert_unchanged(model, before)


def test_a_lone_npy_array_is_not_a_model(tmp_path):
    path = tmp_path / "weights.npy"
    np.save(path, np.ones(3))
    model = net()
    before = snapshot(model)
    with pytest.raises(nn.ModelFileError, match=r"one numpy array \(a \.npy file\)"):
        model.load(path)
    assert_unchanged(model, before)


def test_a_file_of_another_architecture_lists_missing_unexpected_and_shapes(tmp_path):
    other = nn.Sequential(nn.Linear(2, 4, seed=1), nn.BatchNorm1d(4), nn.Linear(4, 1, seed=2),
                          nn.Linear(1, 1, seed=3))
    path = other.save(tmp_path / "other.npz")
    model = net()
    before = snapshot(model)
    with pytest.raises(nn.StateDictError) as err:
        model.load(path)
    message = str(err.value)
    assert str(path) in message and "different model" in message
    assert "unexpected key(s): 3.weight, 3.bias" in message
    assert "size mismatch for 0.weight: the checkpoint has shape (4, 2), the model has (3, 2)" \
        in message
    assert "size mismatch for 1.running_mean" in message  # buffers too
    assert_unchanged(model, before)

    smaller = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    with pytest.raises(nn.StateDictError, match="missing key.*2.weight, 2.bias"):
        net().load(smaller.save(tmp_path / "smaller.npz"))


def test_a_good_file_still_loads_and_a_missing_suffix_is_found(saved):
    model = net(seed=0)
    model.load(saved[: -len(".npz")])
    for key, value in net(seed=7).state_dict().items():
        np.testing.assert_array_equal(model.state_dict()[key], value)


def test_a_missing_file_is_python_s_own_error_naming_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere.npz"):
        net().load(tmp_path / "nowhere.npz")
