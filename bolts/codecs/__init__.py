"""How values and window state become bytes (msgpack, never pickle): between tasks and in state backends."""
