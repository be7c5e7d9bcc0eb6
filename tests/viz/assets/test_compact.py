"""What a saved output inlines: the player's module and stylesheet with comments and
layout stripped, the same tokens in the same order (``viz.assets.compact``)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from viz.assets import asset, module_script
from viz.assets.compact import compact_css, compact_js, js_tokens


def _texts(source: str) -> list[str]:
    return [text for _, text, _ in js_tokens(source)]


def test_comments_and_indentation_go_and_the_tokens_stay():
    src = ("/* head */\nfunction f(a, b) {\n  // why\n  var s = 'a // b /* c */';\n"
           "  return a + b;\n}\n")
    out = compact_js(src)
    assert out == "function f(a,b){var s='a // b /* c */';return a+b;}"
    assert _texts(out) == _texts(src)


def test_neighbours_that_would_fuse_keep_a_space():
    assert compact_js("var x = a + +b;") == "var x=a+ +b;"
    assert compact_js("y = a - --b;") == "y=a- --b;"
    assert compact_js("z = 1 .toString();") == "z=1 .toString();"
    assert compact_js("return typeof x;") == "return typeof x;"
    assert compact_js("q = a / /re/.source.length;") == "q=a/ /re/.source.length;"


def test_a_line_break_that_ends_a_statement_stays():
    # without semicolons, and after return/before ++ (restricted productions), the break
    # is what separates: dropping it would join or change the statements
    assert compact_js("var a = 1\nvar b = 2\n") == "var a=1\nvar b=2"
    assert compact_js("function f() {\n  return\n  (1)\n}") == "function f(){return\n(1)}"
    assert compact_js("a\n++b") == "a\n++b"
    assert compact_js("x = o.f()\n(g)()") == "x=o.f()\n(g)()"


def test_a_line_break_that_cannot_matter_goes():
    assert compact_js("f(a,\n  b)\n.then(c);\nd = e\n  && g;") == "f(a,b).then(c);d=e&&g;"


def test_regular_expressions_are_read_as_one_token():
    src = 'var m = /^([\\d.]+)(pt|px)?$/.exec(v); if (/[/]x/.test(s)) t = a / b / c;'
    kinds = [k for k, _, _ in js_tokens(src)]
    assert kinds.count("regex") == 2
    # after an if's condition a "/" starts a regex, after a call's ")" it divides
    assert compact_js("if (ok) / a b/.test(s);") == "if(ok)/ a b/.test(s);"
    assert compact_js("y = f(x) / 2 / g(z);") == "y=f(x)/2/g(z);"
    assert compact_js(src) == 'var m=/^([\\d.]+)(pt|px)?$/.exec(v);if(/[/]x/.test(s))t=a/b/c;'


def test_what_it_cannot_read_is_named():
    with pytest.raises(ValueError, match="line 2.*unterminated"):
        compact_js("var a = 1;\nvar s = 'open\n")
    with pytest.raises(ValueError, match="template literal"):
        compact_js("var s = `a ${b}`;")


def test_css_keeps_the_spaces_that_mean_something():
    src = """/* note */
.a .b > .c { color: #222; font-family: "Segoe  UI", sans-serif; }
.a :hover,
.d:hover { margin: 0 auto ; }
"""
    assert compact_css(src) == ('.a .b>.c{color:#222;font-family:"Segoe  UI",sans-serif}'
                                ".a :hover,.d:hover{margin:0 auto}")


def test_the_players_module_compacts_to_the_same_code():
    source = asset("player.js")
    small = asset("player.js", compact=True)
    assert _texts(small) == _texts(source)  # every name, string and operator, in order
    assert len(small.encode()) < 0.75 * len(source.encode())
    assert small.startswith("/* viz/assets/player.js") and small.count("/*") == 1
    for name in ("export function mountAll(", "export function zoomPan(", "export default"):
        assert name in small
    assert "</script" not in small.lower()  # it is inlined in a <script> element


def test_the_players_stylesheet_compacts():
    source, small = asset("player.css"), asset("player.css", compact=True)
    assert "/*" not in small and len(small) < 0.85 * len(source)
    assert small.count("{") == re.sub(r"/\*.*?\*/", "", source, flags=re.S).count("{")
    assert ".mg-stepper .mg-graph svg{" in small


def test_module_script_starts_every_player_with_the_compacted_module():
    script = module_script()
    assert script.startswith('<script type="module">' + asset("player.js", compact=True))
    assert script.endswith("\nmountAll(document);\n</script>")


def test_a_file_the_stripper_cannot_read_is_embedded_as_written(monkeypatch):
    import viz.assets as assets

    def unreadable(text, header=""):
        raise ValueError("compact_js: a template literal with ${...} is not supported")

    assets.asset.cache_clear()
    monkeypatch.setattr(assets, "compact_js", unreadable)
    try:
        with pytest.warns(RuntimeWarning, match="player.js is embedded as written"):
            assert asset("player.js", compact=True) == asset("player.js")
    finally:
        assets.asset.cache_clear()


def test_an_unknown_asset_is_named_with_the_ones_there_are():
    with pytest.raises(FileNotFoundError, match=r"'player.jss'.*player\.css, player\.js"):
        asset("player.jss")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_node_parses_the_compacted_module(tmp_path):
    path = tmp_path / "player.mjs"
    path.write_text(asset("player.js", compact=True), encoding="utf-8")
    done = subprocess.run(["node", "--check", str(path)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
