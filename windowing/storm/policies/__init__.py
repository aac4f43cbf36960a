"""Storm's eviction and trigger policies: count or time, processing or event time, and their contracts."""
