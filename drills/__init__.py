"""The Triton drills harness: catalog, runtime selection, testing helpers, grading and reports."""


class NotStarted(Exception):
    """Raised by an untouched stub, so the grader reports the drill as not started."""

    def __init__(self, drill: str = ""):
        where = f" (mine/{drill}.py)" if drill else ""
        super().__init__(f"this drill has not been started yet{where}")
