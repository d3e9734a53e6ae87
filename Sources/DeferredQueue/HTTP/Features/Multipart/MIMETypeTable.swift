import Foundation

/// The MIME type of a file, guessed from its extension with a small built-in table
/// (the platform's type database is not available on Linux).
enum MIMETypeTable {
    /// The type for files the table does not know.
    static let fallback = "application/octet-stream"

    /// The MIME type for `pathExtension`, compared case-insensitively; ``fallback`` when unknown.
    static func forExtension(_ pathExtension: String) -> String {
        table[pathExtension.lowercased()] ?? fallback
    }

    private static let table: [String: String] = [
        // Text
        "txt": "text/plain", "text": "text/plain", "log": "text/plain",
        "html": "text/html", "htm": "text/html", "css": "text/css", "csv": "text/csv",
        "md": "text/markdown", "markdown": "text/markdown",
        "js": "text/javascript", "mjs": "text/javascript",
        "json": "application/json", "xml": "application/xml",
        "yaml": "application/yaml", "yml": "application/yaml",
        // Images
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "svg": "image/svg+xml", "bmp": "image/bmp", "ico": "image/vnd.microsoft.icon",
        "tif": "image/tiff", "tiff": "image/tiff", "heic": "image/heic", "avif": "image/avif",
        // Documents and archives
        "pdf": "application/pdf", "rtf": "application/rtf",
        "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip",
        "tar": "application/x-tar", "bz2": "application/x-bzip2", "7z": "application/x-7z-compressed",
        "wasm": "application/wasm",
        // Audio
        "mp3": "audio/mpeg", "wav": "audio/wav", "m4a": "audio/mp4", "aac": "audio/aac",
        "ogg": "audio/ogg", "oga": "audio/ogg", "flac": "audio/flac", "opus": "audio/opus",
        // Video
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm",
        "mpeg": "video/mpeg", "mpg": "video/mpeg", "avi": "video/x-msvideo", "mkv": "video/x-matroska",
    ]
}
