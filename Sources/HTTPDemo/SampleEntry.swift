/// The entry `--offline` serves: written for this demo in the shape the
/// Hatena Bookmark entry API returns (users and comments are invented).
enum SampleEntry {
    static let json = #"""
    {
      "eid": "238947202",
      "title": "Alamofireの非同期処理を支えるサスペンドされたキュー - Hatena Developer Blog",
      "count": 412,
      "url": "http://developer.hatenastaff.com/entry/2014/12/01/164046",
      "requested_url": "http://developer.hatenastaff.com/entry/2014/12/01/164046",
      "entry_url": "https://b.hatena.ne.jp/entry/s/developer.hatenastaff.com/entry/2014/12/01/164046",
      "screenshot": "https://b.st-hatena.com/images/v4/public/entry-image.png",
      "bookmarks": [
        {"user": "queue_watcher", "tags": ["swift", "GCD"], "timestamp": "2014/12/01 17:02",
         "comment": "suspend したキューにクロージャを積んでおいて、完了時に resume するだけ。これは美しい。"},
        {"user": "ios_dev_taro", "tags": ["iOS", "Alamofire"], "timestamp": "2014/12/01 17:15",
         "comment": "レスポンスハンドラが登録順に実行される仕組みがよく分かった"},
        {"user": "gcd-fan", "tags": [], "timestamp": "2014/12/01 17:40", "comment": ""},
        {"user": "lambda_cat", "tags": ["swift", "あとで読む"], "timestamp": "2014/12/01 18:03",
         "comment": "Nice trick: the serial queue is the handler list. Releasing it while suspended crashes, though — worth a note in any library that copies this."},
        {"user": "mobile-sre", "tags": ["networking"], "timestamp": "2014/12/01 19:21",
         "comment": "キャンセル時にキューを resume し忘れるとリークするので注意"},
        {"user": "hatena_reader_01", "tags": ["programming"], "timestamp": "2014/12/02 08:10", "comment": "朝イチで読んだ。"},
        {"user": "promise_kun", "tags": ["promise", "swift"], "timestamp": "2014/12/02 09:45",
         "comment": "Promise の then をキューで表現する発想"},
        {"user": "kotlin_curious", "tags": [], "timestamp": "2014/12/02 12:30",
         "comment": "Android だと Handler で似たことをやる"},
        {"user": "dispatch_main", "tags": ["GCD", "libdispatch"], "timestamp": "2014/12/03 22:05",
         "comment": "dispatch_suspend / dispatch_resume の回数は必ず揃えること"},
        {"user": "tanaka_h", "tags": ["swift"], "timestamp": "2014/12/05 10:11", "comment": "わかりやすい"}
      ],
      "related": [
        {"eid": "238800001", "title": "GCD入門: シリアルキューとコンカレントキュー", "count": 88,
         "url": "https://example.com/gcd-intro", "entry_url": "https://b.hatena.ne.jp/entry/s/example.com/gcd-intro"}
      ]
    }
    """#
}
