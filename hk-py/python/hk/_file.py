"""Files: reading (``open``), the objects and their members, edits, writing, ``build``
and ``convert``."""

from __future__ import annotations

import builtins
import json
import os
from typing import Any, Dict, Iterator, List, Optional, Union

from . import _hk

PathLike = Union[str, "os.PathLike[str]"]


class Object:
    """One object of a file: its ``id``, ``class_name`` and members by name.

    ``obj["name"]`` (or ``obj.name`` when the member name is no attribute of this class)
    is the member's value as Python values: ints, floats, strings, lists, dicts for
    structs, and the :class:`Object` a pointer points to (``None`` for null).
    ``obj["name"] = value`` edits it; the edit is checked as ``hk build`` checks a dump
    when the file is written (:meth:`File.write`) or checked (:meth:`File.check`).
    """

    __slots__ = ("_file", "_raw", "id", "class_name")

    def __init__(self, file: "File", raw: Dict[str, Any]):
        self._file = file
        self._raw = raw
        self.id: int = raw["id"]
        self.class_name: str = raw["class"]

    @property
    def member_names(self) -> List[str]:
        """The member names, in the class's flattened order."""
        return [n for n, _ in self._file._shapes(self.class_name)]

    @property
    def members(self) -> Dict[str, Any]:
        """Every member's value, by name."""
        return {n: self[n] for n in self._raw.get("fields", {})}

    def __getitem__(self, name: str) -> Any:
        fields = self._raw.get("fields", {})
        if name not in fields:
            raise KeyError(f"#{self.id} {self.class_name} has no member {name!r}")
        return self._file._value(fields[name], self._file._shape(self.class_name, name))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(str(e)) from None

    def __setitem__(self, name: str, value: Any) -> None:
        self.set(name, value)

    def __contains__(self, name: str) -> bool:
        return name in self._raw.get("fields", {})

    def get(self, path: str) -> Any:
        """The value at ``path``: a member name, then ``.member`` of structs and ``[i]``
        of arrays (``"collidable.broadPhaseHandle.collisionFilterInfo"``)."""
        holder, key, shape = self._walk(path)
        return self._file._value(holder[key], shape)

    def set(self, path: str, value: Any) -> None:
        """Sets the value at ``path`` (as :meth:`get` names it). Objects and
        :class:`Ref` become their ids. A path the class lacks raises
        :class:`hk.WriteError` at once; a value that does not fit its member raises it
        when the file is written or checked, naming the member."""
        holder, key, _ = self._walk(path)
        holder[key] = _plain(value)
        self._file._edited = True

    def _walk(self, path: str):
        steps = _steps(path)
        holder: Any = self._raw.get("fields", {})
        shape: Any = ("struct", self.class_name)
        for i, step in enumerate(steps):
            try:
                if isinstance(step, int):
                    shape = shape[1] if isinstance(shape, tuple) and shape[0] == "array" else "value"
                    holder[step]  # noqa: B018 - the index must exist
                else:
                    cls = shape[1] if isinstance(shape, tuple) and shape[0] == "struct" else None
                    if cls is None or step not in holder:
                        raise KeyError(step)
                    shape = self._file._shape(cls, step)
            except (KeyError, IndexError, TypeError):
                e = _hk.WriteError(f"#{self.id} {self.class_name}: no {path!r} (at {step!r})")
                e.path = f"#{self.id} {self.class_name}.{path}"
                e.offset = e.line = e.column = e.file = None
                raise e from None
            if i + 1 < len(steps):
                holder = holder[step]
        return holder, steps[-1], shape

    def __repr__(self) -> str:
        return f"<hk.Object #{self.id} {self.class_name}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Object) and other._file is self._file and other.id == self.id

    def __hash__(self) -> int:
        return hash((id(self._file), self.id))


class Ref:
    """A pointer the graph holds to an object (``id``), where no object is at hand: a
    pointer into an object's element, or a value set by id."""

    __slots__ = ("id",)

    def __init__(self, id: Any):
        self.id = id

    def __repr__(self) -> str:
        return f"<hk.Ref {self.id!r}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ref) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)


def _steps(path: str) -> List[Union[str, int]]:
    out: List[Union[str, int]] = []
    for part in path.replace("[", ".[").split("."):
        if not part:
            continue
        if part.startswith("[") and part.endswith("]"):
            out.append(int(part[1:-1]))
        else:
            out.append(part)
    if not out:
        raise ValueError("an empty member path")
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, (Object, Ref)):
        return value.id
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, memoryview):
        return value.tolist()
    return value


class File:
    """A Havok file read by :func:`open` (or made by :func:`build`).

    ``info`` holds its facts (container, schema, objects, layout); ``objects`` its objects
    (a list in id order, read from its dump when first asked for); ``root`` the root
    object. ``write()`` writes it back, edits included.
    """

    def __init__(self, native: "_hk.NativeFile", schema: Optional[str] = None):
        self._native = native
        self._schema = schema
        self._doc: Optional[Dict[str, Any]] = None
        self._objects: Optional[List[Object]] = None
        self._by_id: Dict[Any, Object] = {}
        self._members: Dict[str, Dict[str, Any]] = {}
        self._edited = False

    @property
    def info(self) -> Dict[str, Any]:
        """Container, schema (and how it was chosen), object count, root id, size in
        bytes, version and layout facts, and warnings."""
        return self._native.info()

    @property
    def path(self) -> Optional[str]:
        """The file's path (``None`` when read from bytes)."""
        return self._native.info()["path"]

    def _document(self) -> Dict[str, Any]:
        if self._doc is None:
            self._doc = json.loads(self._native.dump())
        return self._doc

    @property
    def objects(self) -> List[Object]:
        """The objects, in id order."""
        if self._objects is None:
            self._objects = [Object(self, o) for o in self._document()["objects"]]
            self._by_id = {o.id: o for o in self._objects}
        return self._objects

    def object(self, id: int) -> Object:
        """The object of id ``id``."""
        self.objects
        return self._by_id[id]

    @property
    def root(self) -> Object:
        """The root object."""
        return self.object(self._document()["root"])

    def find(self, class_name: str) -> Iterator[Object]:
        """The objects of class ``class_name`` (exactly), in id order."""
        return (o for o in self.objects if o.class_name == class_name)

    def dump(self) -> str:
        """The JSON document ``hk dump`` writes (with any edits)."""
        if self._edited:
            return json.dumps(self._doc, indent=2) + "\n"
        return self._native.dump()

    def check(self) -> None:
        """Checks the edits as ``hk build`` checks a dump; raises :class:`hk.Error`
        (naming the object and member path) when one does not fit."""
        self._bytes()

    def _bytes(self) -> bytes:
        if self._edited:
            return _hk.build(json.dumps(self._doc), self._schema)
        return self._native.write()

    def write(self, path: Optional[PathLike] = None, layout: Optional[str] = None):
        """Writes the file back as the kind of file it was read from (``hk build`` of
        its dump when edited), laid out under ``layout`` (four digits such as ``8101``,
        or a preset: ``ps3``, ``win32``, ``win64``, ``ps4`` ...; ``hk convert --layout``)
        when given. Returns the bytes when ``path`` is ``None``, else writes them there
        and returns ``path``."""
        data = self._bytes()
        if layout is not None:
            data = _hk.convert(data, layout, self._schema)
        if path is None:
            return data
        with builtins.open(path, "wb") as f:
            f.write(data)
        return path

    # Member shapes: which values are pointers, structs and arrays.
    def _shapes(self, class_name: str):
        return self._native.members(class_name)

    def _shape(self, class_name: str, member: str) -> Any:
        m = self._members.get(class_name)
        if m is None:
            m = dict(self._native.members(class_name))
            self._members[class_name] = m
        return m.get(member, "value")

    def _value(self, raw: Any, shape: Any) -> Any:
        if shape == "ptr":
            if raw is None:
                return None
            if isinstance(raw, int) and not isinstance(raw, bool):
                self.objects
                return self._by_id.get(raw, Ref(raw))
            return Ref(raw)
        if shape == "variant" and isinstance(raw, dict):
            return {k: self._value(v, "ptr") for k, v in raw.items()}
        if isinstance(shape, tuple):
            if shape[0] == "struct" and isinstance(raw, dict):
                return {k: self._value(v, self._shape(shape[1], k)) for k, v in raw.items()}
            if shape[0] == "array" and isinstance(raw, list):
                inner = shape[1]
                if inner == "value":
                    return list(raw)
                return [self._value(v, inner) for v in raw]
        return raw

    def __repr__(self) -> str:
        i = self.info
        return f"<hk.File {i['path'] or '<bytes>'}: {i['container']}, schema {i['schema']}, {i['objects']} objects>"


def open(source: Union[PathLike, bytes], schema: Optional[str] = None, lenient: bool = False) -> File:
    """Reads a Havok file, as ``hk info`` and ``hk dump`` read it.

    source: a path, or the file's bytes.
    schema: read every file with this schema folder instead of the selection rule (a
        folder, or a generation name such as ``havok-2010.2``; ``hk --schema``).
    lenient: accept and record broken invariants instead of refusing the file
        (``hk --lenient``); ``info["warnings"]`` lists them.

    Any container hk reads (packfile, TAG0 tagfile bare or in its phive or cm container,
    old binary tagfile, Havok XML) is recognised by its first bytes. Raises
    :class:`hk.ReadError` (with ``offset`` and ``path``), :class:`hk.SchemaError` or
    :class:`hk.FileError`.
    """
    return File(_hk.open(source, schema, lenient), schema)


def build(document: Union[str, bytes, Dict[str, Any]], schema: Optional[str] = None) -> File:
    """The file a dump describes (``hk build``): ``document`` is the JSON document
    ``hk dump`` writes, as text or as the dict ``json.loads`` makes of it, edited or not.
    Every value is checked against its member; a value that does not fit raises
    :class:`hk.ReadError` naming the line, column and object/member path. Returns the
    built file (``.write(path)`` writes it)."""
    if isinstance(document, dict):
        document = json.dumps(document)
    elif isinstance(document, bytes):
        document = document.decode("utf-8")
    data = _hk.build(document, schema)
    return File(_hk.open(data, schema, False), schema)


def convert(source: Union[PathLike, bytes], layout: str, schema: Optional[str] = None) -> bytes:
    """The file at ``source`` (a path or the bytes) converted to ``layout`` (four digits
    such as ``8101``, or a preset such as ``win64``), as ``hk convert`` converts. Returns
    the bytes."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        with builtins.open(source, "rb") as f:
            data = f.read()
    return _hk.convert(data, layout, schema)
