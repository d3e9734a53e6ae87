extension AsyncSequence {
    /// Every element, once the sequence ends (Alamofire's test helper).
    public func collect() async rethrows -> [Element] {
        var elements: [Element] = []
        for try await element in self {
            elements.append(element)
        }
        return elements
    }
}
