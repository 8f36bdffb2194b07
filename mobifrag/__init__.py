"""mobifrag: reproducible study of file fragmentation on mobile flash storage."""
