"""Storm's windowed bolts: the two bolt bases, their window configuration, and the executors of their tasks."""
