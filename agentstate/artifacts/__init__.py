"""Content-addressed artifacts: files a task read (a spreadsheet, a PDF), stored once by their
SHA-256 through a Django storage backend, named by a lineage whose versions never overwrite."""
