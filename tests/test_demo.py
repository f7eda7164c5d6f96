"""The device-transfer demo (``ci/demo``) passes on two devices and on one (the common GPU machine)."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

DEMO = pathlib.Path(__file__).resolve().parents[1] / "examples" / "device_transfer.py"


@pytest.mark.parametrize("devices", ["1", "2"])
def test_device_transfer_demo(devices):
    env = {**os.environ, "OPENREG_EMULATED_DEVICES": devices, "OPENREG_DRIVER": "emulated"}
    run = subprocess.run([sys.executable, str(DEMO)], check=False, env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "8/8 checks passed on the emulated driver" in run.stdout
    one_device_hop = "dev:0 -> dev:0 on a second stream (one device)"
    assert (one_device_hop in run.stdout) == (devices == "1")
    assert f"devices: {devices}" in run.stdout
