"""Directories squall writes beside Spark's checkpoint, on the local disk or any Hadoop-compatible filesystem.

``checkpoint_location`` and ``output_dir`` may be local paths, ``file://`` URLs,
or URLs of any filesystem the Hadoop client in Spark's JVM knows (``hdfs://``,
``s3a://``, ``abfs://``, ...). :func:`open_dir` picks the implementation by the
URL's scheme: a plain path or a ``file:`` URL is a :class:`LocalDir` (Python
I/O, fast), anything else a :class:`HadoopDir` that goes through Hadoop's
``FileSystem`` API over py4j, configured by the session's Hadoop configuration
(``spark.hadoop.*``). Only the driver reads and writes these directories.

Both implement :class:`StorageDir`: read, atomically replace, list and delete
the files of one directory. A file is replaced by writing a temporary file
beside it and renaming it over the old one. On the local disk and HDFS the
rename is atomic; on object stores (S3A, GCS) it is a copy and a delete, so a
reader may see the old file or none for a moment, never a partial one.
"""

from __future__ import annotations

import os
import re
from abc import ABC, abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

LOCAL_SCHEMES = frozenset({"file"})  # URL schemes read and written with Python's I/O; the rest go through Hadoop
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")


def scheme_of(location: str | Path) -> str:
    """The URL scheme of ``location`` (lower case), ``""`` for a plain path."""
    if isinstance(location, Path):
        return ""
    match = _SCHEME.match(location)
    return "" if match is None or len(match.group(1)) == 1 else match.group(1).lower()  # 'C:' is a drive


def is_local(location: str | Path) -> bool:
    """Whether ``location`` is read and written with Python's I/O: a plain path, or a scheme in ``LOCAL_SCHEMES``."""
    scheme = scheme_of(location)
    return scheme == "" or scheme in LOCAL_SCHEMES


def local_path(location: str | Path) -> Path:
    """The local path of a plain path or ``file:`` URL (``file:///a``, ``file:/a``, ``file://localhost/a``)."""
    if isinstance(location, Path):
        return location
    if scheme_of(location) != "file":
        return Path(location)
    rest = location[len("file:"):]
    if rest.startswith("//"):
        host, _, path = rest[2:].partition("/")
        if host not in ("", "localhost"):
            msg = f"file URL {location!r} names host {host!r}; only local file: URLs are supported"
            raise ValueError(msg)
        rest = "/" + path
    return Path(rest)


def join(location: str | Path, *names: str) -> str | Path:
    """``location`` with ``names`` appended: a Path for a Path, a URL (``/``-joined) for a str."""
    if isinstance(location, Path):
        return location.joinpath(*names)
    return "/".join([location.rstrip("/"), *names]) if names else location


class StorageDir(ABC):
    """One directory: files read whole, replaced atomically, listed and deleted by name."""

    location: str

    @abstractmethod
    def child(self, name: str) -> StorageDir:
        """The subdirectory ``name`` (not created)."""

    @abstractmethod
    def mkdirs(self) -> None:
        """Create this directory and its parents (no error if it exists)."""

    @abstractmethod
    def is_dir(self) -> bool:
        """Whether this directory exists."""

    @abstractmethod
    def exists(self, name: str) -> bool:
        """Whether file ``name`` exists here."""

    @abstractmethod
    def read_text(self, name: str) -> str:
        """File ``name``'s text (UTF-8); ``FileNotFoundError`` when it does not exist."""

    @abstractmethod
    def write_text(self, name: str, text: str) -> None:
        """Replace file ``name`` with ``text`` (UTF-8): a temporary file, then a rename over the old one."""

    @abstractmethod
    def delete(self, name: str) -> None:
        """Delete file ``name`` (no error if it does not exist)."""

    @abstractmethod
    def names(self) -> list[str]:
        """The names of the entries of this directory (``[]`` when it does not exist)."""

    def __str__(self) -> str:
        return self.location

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.location!r})"


class LocalDir(StorageDir):
    """A directory on the local disk, through Python's I/O."""

    def __init__(self, path: str | Path) -> None:
        self.path = local_path(path)
        self.location = str(self.path)

    def child(self, name: str) -> LocalDir:
        """The subdirectory ``name``."""
        return LocalDir(self.path / name)

    def mkdirs(self) -> None:
        """Create the directory."""
        self.path.mkdir(parents=True, exist_ok=True)

    def is_dir(self) -> bool:
        """Whether it exists."""
        return self.path.is_dir()

    def exists(self, name: str) -> bool:
        """Whether file ``name`` exists."""
        return (self.path / name).exists()

    def read_text(self, name: str) -> str:
        """File ``name``'s text."""
        return (self.path / name).read_text(encoding="utf-8")

    def write_text(self, name: str, text: str) -> None:
        """Replace file ``name`` atomically."""
        tmp = self.path / f".{name}.tmp"
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, self.path / name)

    def delete(self, name: str) -> None:
        """Delete file ``name``."""
        (self.path / name).unlink(missing_ok=True)

    def names(self) -> list[str]:
        """The entries' names."""
        return [p.name for p in self.path.iterdir()] if self.path.is_dir() else []


class HadoopDir(StorageDir):
    """A directory on a Hadoop-compatible filesystem (``hdfs://``, ``s3a://``, ...), through Spark's JVM.

    Errors from the JVM (no namenode, no ``FileSystem`` for the scheme, no
    permission) are raised as ``OSError`` naming the operation and the URL.
    """

    def __init__(self, spark: SparkSession, url: str) -> None:
        self.spark = spark
        self.location = url.rstrip("/") or url
        jvm = spark._jvm  # type: ignore[attr-defined]
        self._jvm = jvm
        self._path = jvm.org.apache.hadoop.fs.Path(self.location)
        self._fs = self._call("open the filesystem of", lambda: self._path.getFileSystem(
            spark._jsc.hadoopConfiguration()))  # type: ignore[attr-defined]

    def _call(self, what: str, action: Any, name: str | None = None) -> Any:
        from py4j.protocol import Py4JJavaError

        try:
            return action()
        except Py4JJavaError as err:
            java = err.java_exception
            target = self.location if name is None else f"{self.location}/{name}"
            reason = f"{java.getClass().getName()}: {java.getMessage()}"
            if java.getClass().getName().endswith("FileNotFoundException"):
                msg = f"{what} {target}: {reason}"
                raise FileNotFoundError(msg) from None
            msg = f"{what} {target} through Hadoop's FileSystem failed: {reason}"
            raise OSError(msg) from None

    def _file(self, name: str) -> Any:
        return self._jvm.org.apache.hadoop.fs.Path(self._path, name)

    def child(self, name: str) -> HadoopDir:
        """The subdirectory ``name``."""
        return HadoopDir(self.spark, f"{self.location}/{name}")

    def mkdirs(self) -> None:
        """Create the directory (``FileSystem.mkdirs``)."""
        if not self._call("create the directory", lambda: self._fs.mkdirs(self._path)):
            msg = f"create the directory {self.location} through Hadoop's FileSystem: mkdirs returned false"
            raise OSError(msg)

    def is_dir(self) -> bool:
        """Whether it exists as a directory."""
        def check() -> bool:
            return bool(self._fs.exists(self._path)) and bool(self._fs.getFileStatus(self._path).isDirectory())
        return bool(self._call("look up the directory", check))

    def exists(self, name: str) -> bool:
        """Whether file ``name`` exists."""
        return bool(self._call("look up", lambda: self._fs.exists(self._file(name)), name))

    def read_text(self, name: str) -> str:
        """File ``name``'s text (``FileSystem.open``)."""
        def read() -> str:
            stream = self._fs.open(self._file(name))
            out = self._jvm.java.io.ByteArrayOutputStream()
            self._jvm.org.apache.hadoop.io.IOUtils.copyBytes(stream, out, 65536, True)
            return str(out.toString("UTF-8"))
        return str(self._call("read", read, name))

    def write_text(self, name: str, text: str) -> None:
        """Replace file ``name``: ``create`` a temporary file, then ``rename`` it over the old one."""
        def write() -> None:
            tmp, target = self._file(f".{name}.tmp"), self._file(name)
            out = self._fs.create(tmp, True)
            try:
                out.write(bytearray(text.encode("utf-8")))
            finally:
                out.close()
            if not self._fs.rename(tmp, target):
                # HDFS's FileSystem.rename does not replace an existing file: delete it, then rename.
                self._fs.delete(target, False)
                if not self._fs.rename(tmp, target):
                    msg = f"rename {tmp.toString()} to {target.toString()} returned false"
                    raise OSError(msg)
        self._call("write", write, name)

    def delete(self, name: str) -> None:
        """Delete file ``name`` (``FileSystem.delete``, not recursive)."""
        self._call("delete", lambda: self._fs.delete(self._file(name), False), name)

    def names(self) -> list[str]:
        """The entries' names (``FileSystem.listStatus``)."""
        def listing() -> list[str]:
            if not self._fs.exists(self._path):
                return []
            return [str(status.getPath().getName()) for status in self._fs.listStatus(self._path)]
        return list(self._call("list", listing))


def open_dir(location: str | Path, spark: SparkSession | None = None) -> StorageDir:
    """The :class:`StorageDir` of ``location``: local for a path or ``file:`` URL, Hadoop's for other schemes.

    A scheme other than ``file`` needs ``spark`` (its JVM holds the Hadoop client).
    """
    if is_local(location):
        return LocalDir(location)
    if spark is None:
        msg = (f"{location!r} is a {scheme_of(location)}:// URL: reading and writing it needs a SparkSession "
               "(Hadoop's FileSystem)")
        raise ValueError(msg)
    return HadoopDir(spark, str(location))


def as_dir(directory: StorageDir | str | Path) -> StorageDir:
    """``directory`` as a :class:`StorageDir` (a path or ``file:`` URL becomes a :class:`LocalDir`)."""
    return directory if isinstance(directory, StorageDir) else open_dir(directory)
