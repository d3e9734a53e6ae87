extension Result {
    /// Whether it is a success.
    public var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }

    /// The error of a failure, `nil` for a success (Alamofire's test helper).
    public var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
