"""The board reader's learned decision (``vision/place_model.py``): the shipped model, retraining it with
``alchemy-table train-reader`` from rendered tables, and its refusals."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.cli import main
from vision import place_crops, place_model
from vision.place_model import PlaceModel
from vision.train_places import examples


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """PyTorch trains these tiny sets on one thread: its pool of two spins on batches of 16 to 30 places and
    runs several times slower on a shared two-core machine (4.6 s against 29 s for the train-reader test's)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """Two small rendered Chaudron tables (seed 4402: drawn for this test)."""
    folder = tmp_path_factory.mktemp("tables")
    assert main(["render", "--set", str(folder), "--layout", "chaudron", "--tables", "2", "--frames-per-table", "3",
                 "--seed", "4402"]) == 0
    return folder


def test_the_shipped_model_loads_and_knows_the_readers_features():
    model = place_model.shipped()
    assert model.mean.shape == (place_model.N_FEATURES,)
    picture = np.broadcast_to(model.crop_mean, (1, place_crops.SIZE, place_crops.SIZE, place_crops.CHANNELS))
    assert model.probabilities(model.mean[None, :], picture).shape == (1, len(place_model.CLASSES))


def test_a_place_unlike_any_it_was_trained_on_is_never_read_with_confidence():
    model = place_model.shipped()
    x = np.array([model.mean, model.high + 10 * (model.high - model.low + 1)], np.float32)
    pictures = np.broadcast_to(model.crop_mean, (2, place_crops.SIZE, place_crops.SIZE, place_crops.CHANNELS))
    _, sure = model.decide(x, pictures)
    assert sure[1] == 0.0  # unknown, not the network's guess


def test_train_reader_retrains_from_rendered_tables(tables, tmp_path, capsys):
    out = tmp_path / "places.npz"
    # a frame cut short (a copy interrupted, a full disk) teaches nothing and stops nothing
    table = sorted(p for p in tables.iterdir() if p.is_dir())[0]
    (table / "f099-warm.png").write_bytes(b"\x89PNG cut short")
    (table / "f099-warm.json").write_text((table / "f000-warm.json").read_text())
    assert main(["train-reader", "--from", str(tables), "--out", str(out), "--epochs", "30"]) == 0
    printed = capsys.readouterr().out
    assert "model written to" in printed and "held-out tables" in printed
    model = PlaceModel.load(out)
    # The retrained model decides the places it learnt from as their truth says (empty or which piece).
    x, crops, y, _ = examples([tables], progress=lambda line: None)
    kind, sure = model.decide(x, crops)
    decided = sure >= place_model.SURE
    assert decided.mean() > 0.6 and (kind[decided] == y[decided]).mean() > 0.95


def test_train_reader_refuses_with_one_line(tmp_path, capsys):
    (tmp_path / "nothing").mkdir()
    assert main(["train-reader", "--from", str(tmp_path / "nothing"), "--out", str(tmp_path / "m.npz")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no rendered tables" in err and "Traceback" not in err
    assert not (tmp_path / "m.npz").exists()


def test_a_damaged_model_file_is_named_with_the_command_that_remakes_it(tmp_path):
    path = tmp_path / "places.npz"
    path.write_bytes(b"not a model")
    with pytest.raises(ValueError, match=r"places\.npz: not a place model .*train-reader"):
        PlaceModel.load(path)


def test_the_trained_network_reads_the_same_in_numpy_as_it_learnt():
    # Pictures whose class is whether one channel is bright at the centre (a piece there, whatever the
    # turn): the numpy model decides them only if its kernels and hidden rows are laid out as PyTorch learnt
    # them (a channel or a cell out of place reads the wrong numbers).
    from vision.train_places import train

    rng = np.random.default_rng(5)
    size, channels = place_crops.SIZE, place_crops.CHANNELS
    crops = rng.normal(0, 1, (600, size, size, channels)).astype(np.float32)
    y = rng.integers(0, 2, 600)
    middle = slice(size // 2 - 1, size // 2 + 1)
    crops[:, middle, middle, 7] += np.where(y == 1, 3.0, -3.0)[:, None, None]
    x = rng.normal(0, 1, (600, place_model.N_FEATURES)).astype(np.float32)
    model = train(x, crops, y, seed=1, epochs=15, progress=lambda line: None)
    kind = model.probabilities(x, crops).argmax(axis=1)
    assert (kind == y).mean() > 0.95
