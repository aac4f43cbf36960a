"""Running the batches in another process than the client's (Spark Connect): what travels, what is written."""
