"""The one content-hash cache of the mutation layers: a record is reused only under the key it was made with."""

from __future__ import annotations

import json
from pathlib import Path

from mutations import content_cache


def test_a_record_comes_back_only_under_its_own_key(tmp_path: Path) -> None:
    path = tmp_path / "cache.json"
    first = content_cache.Cache.load(path)
    assert not first.found and first.get("entry", "k1") is None
    first.keep("entry", "k1", {"killer": "B5"})
    first.save()
    again = content_cache.Cache.load(path)
    assert again.found
    assert again.get("entry", "k1") == {"killer": "B5", "key": "k1"}
    assert again.get("entry", "k2") is None and again.get("other", "k1") is None
    # A run keeps only what it kept: what it did not keep is gone from the next file.
    again.save()
    assert content_cache.Cache.load(path).get("entry", "k1") is None


def test_an_unreadable_or_foreign_file_is_an_empty_cache(tmp_path: Path) -> None:
    path = tmp_path / "cache.json"
    for text in ("{not json", json.dumps({"entry": {"key": "k1"}}), json.dumps({"format": 0, "records": {}}), "[]"):
        path.write_text(text, encoding="utf-8")
        loaded = content_cache.Cache.load(path)
        assert not loaded.found and loaded.get("entry", "k1") is None, text
    unsaved = content_cache.Cache.load(None)
    unsaved.keep("entry", "k1")
    unsaved.save()  # no path (``--no-cache``): nothing is written
    assert not unsaved.found


def test_keys_keep_their_parts_apart() -> None:
    assert content_cache.key("ab", "c") != content_cache.key("a", "bc")
    assert content_cache.key("a", b"b") == content_cache.key(b"a", "b")


def test_the_tree_digest_sees_every_byte_and_name_of_what_it_covers(tmp_path: Path) -> None:
    (tmp_path / "guard" / "sub").mkdir(parents=True)
    (tmp_path / "guard" / "a.py").write_text("A = 1\n", encoding="utf-8")
    (tmp_path / "guard" / "sub" / "b.py").write_text("B = 1\n", encoding="utf-8")
    (tmp_path / "guard" / "notes.txt").write_text("not a source\n", encoding="utf-8")

    def digest() -> str:
        return content_cache.tree_digest(tmp_path, ["guard"], (".py",))

    held = digest()
    (tmp_path / "guard" / "notes.txt").write_text("edited\n", encoding="utf-8")
    assert digest() == held
    (tmp_path / "guard" / "sub" / "b.py").write_text("B = 2\n", encoding="utf-8")
    assert digest() != held
    (tmp_path / "guard" / "sub" / "b.py").write_text("B = 1\n", encoding="utf-8")
    assert digest() == held
    (tmp_path / "guard" / "sub" / "b.py").rename(tmp_path / "guard" / "sub" / "c.py")
    assert digest() != held
    # A transform sees each file's path and bytes and may replace them.
    blind = content_cache.tree_digest(tmp_path, ["guard"], (".py",), lambda relative, data: b"" if relative.endswith("a.py") else data)
    (tmp_path / "guard" / "a.py").write_text("A = 2\n", encoding="utf-8")
    assert content_cache.tree_digest(tmp_path, ["guard"], (".py",), lambda relative, data: b"" if relative.endswith("a.py") else data) == blind
