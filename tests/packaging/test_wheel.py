"""A normal install works: a wheel built from a clean copy installs into a fresh venv and imports everything.

The copy holds what a fresh clone would (tracked files plus new files git does not ignore), so
stray build output or egg-info in the working tree cannot hide a packaging bug. The venv has no
system site packages and no pyspark/redis/happybase: the wheel's own dependencies (pyarrow,
msgpack) come from PyPI or pip's cache. Modules that need one of those optional clients at import
time are skipped; any other import failure fails the test.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path, PurePosixPath

import pytest

from tests.packaging.wheels import ROOT, bin_path, make_venv, run

PACKAGES = ("squall", "windowing", "bolts", "state_backends", "topologies")
OPTIONAL = ("pyspark", "redis", "happybase")  # extras the wheel does not install

CHECK_SCRIPT = r"""
import importlib, importlib.util, json, pkgutil, sys, sysconfig, traceback
from importlib import resources
from pathlib import Path

packages, optional, repo = sys.argv[1].split(","), set(sys.argv[2].split(",")), Path(sys.argv[3]).resolve()
purelib = Path(sysconfig.get_paths()["purelib"]).resolve()
report = {
    "purelib": str(purelib), "imported": [], "skipped": {}, "errors": {}, "bad_all": {}, "outside": {},
    "no_py_typed": [], "repo_on_path": [p for p in sys.path if p and Path(p).resolve().is_relative_to(repo)],
    "optional_installed": [name for name in sorted(optional) if importlib.util.find_spec(name)],
}

def missing_optional(exc):
    # The ModuleNotFoundError for an optional client, raised directly or as the cause of a friendlier ImportError.
    while exc is not None:
        if isinstance(exc, ModuleNotFoundError) and (exc.name or "").split(".")[0] in optional:
            return exc.name
        exc = exc.__cause__ or exc.__context__
    return None

def load(name):
    try:
        module = importlib.import_module(name)
    except ImportError as exc:
        if missing_optional(exc):
            report["skipped"][name] = f"{missing_optional(exc)}: {exc}"
        else:
            report["errors"][name] = traceback.format_exc()
        return None
    except Exception:
        report["errors"][name] = traceback.format_exc()
        return None
    report["imported"].append(name)
    where = Path(module.__file__).resolve()
    if not where.is_relative_to(purelib) or where.is_relative_to(repo):
        report["outside"][name] = str(where)
    unresolved = [n for n in getattr(module, "__all__", ()) if not hasattr(module, n)]
    if unresolved:
        report["bad_all"][name] = unresolved
    return module

for top in packages:
    package = load(top)
    if package is None:
        continue
    if not resources.files(top).joinpath("py.typed").is_file():
        report["no_py_typed"].append(top)
    for info in pkgutil.walk_packages(package.__path__, top + ".", onerror=lambda name: None):
        load(info.name)
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv (no system site packages) with the wheel and its dependencies installed."""
    return make_venv(tmp_path_factory.mktemp("venv") / "env", str(wheel))


@pytest.fixture(scope="module")
def import_report(venv: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    workdir = tmp_path_factory.mktemp("check")
    script = workdir / "check_imports.py"
    script.write_text(CHECK_SCRIPT, encoding="utf-8")
    # -I: no PYTHON* variables, no user site, neither the script's folder nor the cwd on sys.path.
    cmd = [str(bin_path(venv, "python")), "-I", str(script), ",".join(PACKAGES), ",".join(OPTIONAL), str(ROOT)]
    result = run(cmd, "importing the installed packages", workdir)
    return json.loads(result.stdout)


def _package_dirs(copy: Path) -> list[PurePosixPath]:
    return sorted(
        PurePosixPath(init.parent.relative_to(copy).as_posix())
        for top in PACKAGES
        for init in (copy / top).rglob("__init__.py")
        if "__pycache__" not in init.parts
    )


def test_wheel_holds_every_module_of_every_package(clean_copy, wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    sources = sorted(
        path.relative_to(clean_copy).as_posix()
        for package in _package_dirs(clean_copy)
        for path in (clean_copy / package).glob("*.py")
    )
    assert sources, f"no package sources found in the copy {clean_copy}"
    missing = [path for path in sources if path not in names]
    assert not missing, f"{wheel.name} is missing modules (is a package left out of setup.py?): {missing}"


def test_wheel_holds_the_assigners_subpackage(wheel):
    # The regression: setup.py listed packages by hand and left windowing.assigners out.
    with zipfile.ZipFile(wheel) as archive:
        assigners = sorted(name for name in archive.namelist() if name.startswith("windowing/assigners/"))
    assert "windowing/assigners/__init__.py" in assigners, f"{wheel.name} has no windowing/assigners/ package"
    assert len(assigners) > 1, f"{wheel.name} has windowing/assigners/ without its modules: {assigners}"


def test_wheel_holds_py_typed_and_no_tests(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    untyped = [top for top in PACKAGES if f"{top}/py.typed" not in names]
    assert not untyped, f"{wheel.name} lacks py.typed for {untyped}"
    strays = sorted({name.split("/")[0] for name in names if name.split("/")[0] in ("tests", "benchmarks", "docs")})
    assert not strays, f"{wheel.name} ships non-package folders: {strays}"


def test_venv_does_not_see_the_repo_or_the_optional_clients(import_report):
    assert not import_report["repo_on_path"], f"the repo is on the venv's sys.path: {import_report['repo_on_path']}"
    # Without these, a successful `import squall` shows that the import root needs no Spark.
    assert not import_report["optional_installed"], (
        f"the fresh venv unexpectedly has {import_report['optional_installed']} installed"
    )


def test_every_module_imports_from_the_installed_wheel(import_report):
    errors = import_report["errors"]
    assert not errors, "modules failed to import in the fresh venv:\n" + "\n".join(
        f"--- {name}\n{trace}" for name, trace in sorted(errors.items())
    )
    not_imported = [top for top in PACKAGES if top not in import_report["imported"]]
    assert not not_imported, f"top-level packages did not import: {not_imported} (skipped: {import_report['skipped']})"
    assert len(import_report["imported"]) > len(PACKAGES), f"no submodules found: {import_report['imported']}"


def test_modules_come_from_the_venv_site_packages(import_report):
    outside = import_report["outside"]
    assert not outside, f"modules not loaded from {import_report['purelib']}: {outside}"


def test_every_name_in_all_resolves(import_report):
    assert not import_report["bad_all"], f"names in __all__ that do not resolve: {import_report['bad_all']}"


def test_py_typed_is_installed(import_report):
    assert not import_report["no_py_typed"], f"installed packages without py.typed: {import_report['no_py_typed']}"


def test_console_script_runs(venv, tmp_path):
    result = run([str(bin_path(venv, "squall")), "--help"], "squall --help", tmp_path)
    assert "run" in result.stdout, f"`squall --help` does not mention the run command:\n{result.stdout}"
