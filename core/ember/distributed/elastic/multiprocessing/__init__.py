"""Worker-process side of the elastic launcher: error files (errors.record)."""
