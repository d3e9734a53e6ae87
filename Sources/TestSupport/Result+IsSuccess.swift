extension Result {
    /// Whether it is a success.
    public var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
