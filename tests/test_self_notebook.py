"""The repo's own test of the free-GPU notebook (course/colab/drills.ipynb): executed cell by cell
by a real notebook runner (nbclient, with an IPython kernel, as Colab and Kaggle run it), here on
the CPU, where its GPU cells say they are skipped. It clones this checkout instead of GitHub.
"""

import os

import nbformat
import pytest
from nbclient import NotebookClient

from drills import catalog, runtime

NOTEBOOK = catalog.ROOT / "course" / "colab" / "drills.ipynb"


def cell_output(cell) -> str:
    return "".join(
        o.get("text", "") for o in cell.get("outputs", []) if o["output_type"] == "stream"
    )


def run_every_cell(client: NotebookClient, notebook) -> list[str]:
    """Each code cell in order, in the client's kernel, as "Run all" does: what each printed."""
    for index, cell in enumerate(notebook.cells):
        client.execute_cell(cell, index)  # raises CellExecutionError, with the cell, if one fails
    return [cell_output(c) for c in notebook.cells if c.cell_type == "code"]


def test_the_notebook_runs_end_to_end_twice_and_keeps_the_learners_work(tmp_path, monkeypatch):
    """Run all, an edit of the learner's file, Run all again in the same kernel: the second
    grade is of the edited file, in the one clone the first run made."""
    monkeypatch.setenv("DRILLS_REPO", str(catalog.ROOT))
    monkeypatch.setenv("NO_COLOR", "1")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    client = NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    )
    clone = tmp_path / "triton-drills"
    with client.setup_kernel():
        shown = run_every_cell(client, notebook)
        assert (clone / ".venv" / ".ready").exists()
        assert "content/t1_add.md" in shown[2] and "mine/t1_add.py" in shown[2]
        assert "bootstrap: ready" in shown[3]
        assert "t1     Vector add  not started" in shown[4] and "Total 0/100" in shown[4], shown[4]
        assert "Hint 1" in shown[5], shown[5]
        if runtime.current().is_gpu:
            assert "GPU: " in shown[0]
        else:
            assert "No GPU" in shown[0] and "skipped here" in shown[6], shown
        # the learner's work: the reference, saved as their file
        (clone / "mine" / "t1_add.py").write_text(
            (catalog.ROOT / "solutions" / "t1_add.py").read_text()
        )
        shown = run_every_cell(client, notebook)
    assert not (clone / "triton-drills").exists()  # no clone inside the clone
    assert "Total 100/100" in shown[4], shown[4]
    assert "Hint 2" in shown[5], shown[5]


def test_the_notebook_asks_for_the_repository_before_anything_else(tmp_path, monkeypatch):
    monkeypatch.delenv("DRILLS_REPO", raising=False)
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    )
    with pytest.raises(Exception, match="Set REPO_URL"):
        client.execute()
    assert not (tmp_path / "triton-drills").exists()
    assert os.listdir(tmp_path) == []
