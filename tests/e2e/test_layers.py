"""ci/layers.sh: the include arrows of harness/, probes/ and shared/ against the declared layers (ci/layers.txt)."""
import shutil
import subprocess

from conftest import REPO

SCRIPT = REPO / "ci" / "layers.sh"


def layers(root=None):
    args = ["bash", str(SCRIPT)] + ([str(root)] if root else [])
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def copy_of_the_tree(tmp_path):
    for top in ("harness", "probes", "shared"):
        if (REPO / top).is_dir():
            shutil.copytree(REPO / top, tmp_path / top, ignore=shutil.ignore_patterns("*.txt", "*.toml", "*.md"))
    return tmp_path


def add_include(path, header):
    text = path.read_text()
    path.write_text(f'#include "{header}"\n' + text)


def test_a_tree_in_order_passes(tmp_path):
    (tmp_path / "harness" / "core").mkdir(parents=True)
    (tmp_path / "harness" / "model").mkdir(parents=True)
    (tmp_path / "harness" / "core" / "a.h").write_text("#pragma once\n")
    (tmp_path / "harness" / "model" / "b.cc").write_text('#include "harness/core/a.h"\n#include "harness/model/b.h"\n')
    p = layers(tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout == ""


def test_an_upward_include_is_flagged(tmp_path):
    root = copy_of_the_tree(tmp_path)
    add_include(root / "harness" / "core" / "error.cc", "harness/cli/tools.h")
    p = layers(root)
    assert p.returncode == 1
    assert "harness/core/error.cc:1: upward core -> cli: harness/cli/tools.h" in p.stdout, p.stdout


def test_the_harness_including_a_probe_is_flagged(tmp_path):
    # Even cli/, at the probes' level: what both read belongs in shared/.
    root = copy_of_the_tree(tmp_path)
    add_include(root / "harness" / "cli" / "main.cc", "probes/common/report.h")
    add_include(root / "harness" / "host" / "fs_snapshot.cc", "probes/common/report.h")
    p = layers(root)
    assert p.returncode == 1
    assert "harness/cli/main.cc:1: sideways cli -> probes: probes/common/report.h" in p.stdout, p.stdout
    assert "harness/host/fs_snapshot.cc:1: upward host -> probes: probes/common/report.h" in p.stdout, p.stdout


def test_a_family_folder_is_layered_by_file_name(tmp_path):
    # harness/classes/<family>/: spec* is model, *_test.cc tests, everything else attempt
    # (ci/layers.txt's `*` patterns). A family's spec reaching for a judge's header is upward.
    root = copy_of_the_tree(tmp_path)
    add_include(root / "harness" / "classes" / "net" / "spec.h", "harness/attempt/oracle.h")
    add_include(root / "harness" / "classes" / "net" / "inbound.cc", "harness/run/plan.h")
    add_include(root / "harness" / "classes" / "net" / "inbound_test.cc", "harness/cli/tools.h")
    p = layers(root)
    assert p.returncode == 1
    assert "harness/classes/net/spec.h:1: upward model -> attempt: harness/attempt/oracle.h" in p.stdout, p.stdout
    assert "harness/classes/net/inbound.cc:1: upward attempt -> run: harness/run/plan.h" in p.stdout, p.stdout
    assert "inbound_test.cc" not in p.stdout, p.stdout  # a test may include anything


def test_a_file_in_no_layer_is_flagged(tmp_path):
    root = copy_of_the_tree(tmp_path)
    (root / "harness" / "extras").mkdir()
    (root / "harness" / "extras" / "x.cc").write_text('#include "harness/core/error.h"\n')
    p = layers(root)
    assert p.returncode == 1
    assert "harness/extras/x.cc: in no layer" in p.stdout, p.stdout


def test_this_tree_keeps_its_layers():
    p = layers()
    assert p.returncode == 0, p.stdout + p.stderr
