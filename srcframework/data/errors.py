class DatasetError(ValueError):
    """Bad input data. The message names the file and, where there is one, the question id."""

    def __init__(self, file_path, message: str, qid: str = None, reason: str = None) -> None:
        where = str(file_path) if qid is None else f"{file_path} (question id {qid!r})"
        super().__init__(f"{where}: {message}")
        self.file_path = str(file_path)
        self.qid = qid
        self.reason = reason or message
