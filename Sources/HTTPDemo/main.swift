print("HTTPDemo: coming soon")
