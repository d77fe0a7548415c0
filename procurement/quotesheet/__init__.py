"""Quote sheets (DESIGN §13): a requester's spreadsheet of quotes, stored as an artifact of her
request, read row by row, checked against the catalogue and the supplier list; its exceptions
become open questions in State that the agent asks one at a time."""
