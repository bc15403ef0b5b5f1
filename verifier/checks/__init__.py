"""One module per kind of check (brief, section 4), each a part of the Verifier class with the
questions it asks and the findings it gives; the shared machinery is in ../context.py."""
