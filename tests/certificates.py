"""Certificates made with ``openssl`` for tests of TLS servers: a CA, and certificates it signs.

``Authority(directory, "test-ca")`` makes a self-signed CA (``ca.pem``,
``ca.key``); ``issue("server", ip="127.0.0.1")`` makes a key and a certificate
signed by it, for a server on that address (its subjectAltName) or, without
``ip``, for a client. Keys are RSA 2048 and unencrypted; certificates last one
day. Two authorities are unrelated: a certificate of one does not verify
against the other, which is how tests make a "wrong CA".
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest


def _openssl(*args: str) -> None:
    binary = shutil.which("openssl")
    if binary is None:
        pytest.skip("openssl is not installed; run scripts/install_services.sh")
    subprocess.run([binary, *args], check=True, capture_output=True)


@dataclass(frozen=True)
class Issued:
    """A certificate and its private key, PEM files."""

    cert: Path
    key: Path


class Authority:
    """A certificate authority in ``directory``: ``ca.pem`` (its certificate) and ``ca.key``."""

    def __init__(self, directory: Path, name: str = "squall-test-ca") -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.cert, self.key = directory / "ca.pem", directory / "ca.key"
        _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", f"/CN={name}",
                 "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                 "-keyout", str(self.key), "-out", str(self.cert))

    def issue(self, name: str, ip: str | None = None) -> Issued:
        """A key and a certificate for ``name`` signed by this CA: a server's on ``ip``, else a client's."""
        key, request, cert = (self.directory / f"{name}{suffix}" for suffix in (".key", ".csr", ".pem"))
        extensions = self.directory / f"{name}.ext"
        usage = "serverAuth" if ip else "clientAuth"
        lines = ["basicConstraints=CA:FALSE", f"extendedKeyUsage={usage}"]
        lines += [f"subjectAltName=IP:{ip}"] if ip else []
        extensions.write_text("\n".join(lines) + "\n", encoding="utf-8")
        _openssl("req", "-new", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={ip or name}",
                 "-keyout", str(key), "-out", str(request))
        _openssl("x509", "-req", "-in", str(request), "-CA", str(self.cert), "-CAkey", str(self.key),
                 "-CAcreateserial", "-days", "1", "-extfile", str(extensions), "-out", str(cert))
        return Issued(cert, key)
