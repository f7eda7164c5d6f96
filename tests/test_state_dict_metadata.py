"""``state_dict()._metadata`` (each module's ``_version`` by prefix) and the loads that read it: BatchNorm's
version 2 (a checkpoint without ``num_batches_tracked`` loads), InstanceNorm's pre-0.4 running stats, a module's
own ``_load_from_state_dict`` seeing its saved version (torchvision's MNASNet). Compared with PyTorch."""
from __future__ import annotations

import io

import pytest

import openreg

torch = pytest.importorskip("torch")


def _net(lib):
    return lib.nn.Sequential(lib.nn.Conv2d(1, 2, 1), lib.nn.BatchNorm2d(2), lib.nn.Sequential(lib.nn.InstanceNorm2d(2)))


def test_state_dict_metadata_matches_torch_and_survives_save_load():
    ours, theirs = _net(openreg).state_dict(), _net(torch).state_dict()
    assert ours._metadata == theirs._metadata
    buf = io.BytesIO()
    openreg.save(ours, buf)
    buf.seek(0)
    assert openreg.load(buf)._metadata == theirs._metadata


@pytest.mark.parametrize("lib_name", ["openreg", "torch"])
def test_batchnorm_loads_a_checkpoint_without_num_batches_tracked(lib_name):
    lib = openreg if lib_name == "openreg" else torch
    net = _net(lib)
    net[1].num_batches_tracked.fill_(7)
    sd = {k: v for k, v in net.state_dict().items() if "num_batches_tracked" not in k}
    assert str(net.load_state_dict(sd)) == "<All keys matched successfully>"
    assert net[1].num_batches_tracked.item() == 7
    # with the checkpoint's metadata saying version 2, the key is required
    meta = net.state_dict()._metadata
    from collections import OrderedDict
    sd2 = OrderedDict(sd)
    sd2._metadata = meta
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "1.num_batches_tracked"'):
        net.load_state_dict(sd2)


def test_instancenorm_pre_04_running_stats_message_matches_torch():
    msgs = []
    for lib in (openreg, torch):
        with pytest.raises(RuntimeError) as e:
            _net(lib).load_state_dict({**{k: v for k, v in _net(lib).state_dict().items()},
                                       "2.0.running_mean": lib.zeros(2), "2.0.running_var": lib.ones(2)})
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
    assert "Unexpected running stats buffer(s)" in msgs[0]


def test_a_modules_load_sees_its_saved_version():
    for lib in (openreg, torch):
        seen = []

        class Versioned(lib.nn.Module):
            _version = 3

            def __init__(self):
                super().__init__()
                self.lin = lib.nn.Linear(1, 1)

            def _load_from_state_dict(self, state_dict, prefix, local_metadata, *args):
                seen.append(local_metadata.get("version"))
                super()._load_from_state_dict(state_dict, prefix, local_metadata, *args)

        m = Versioned()
        m.load_state_dict(m.state_dict())
        m.load_state_dict(dict(m.state_dict()))
        assert seen[0] == 3 and seen[-1] is None
