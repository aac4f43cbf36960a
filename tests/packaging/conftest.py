"""The wheel the packaging tests install: built once per run from a clean copy of the checkout."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.packaging.wheels import build_wheel, copy_clone


@pytest.fixture(scope="session")
def clean_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_clone(tmp_path_factory.mktemp("clone") / "squall")


@pytest.fixture(scope="session")
def wheel(clean_copy: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(clean_copy, tmp_path_factory.mktemp("dist"))
