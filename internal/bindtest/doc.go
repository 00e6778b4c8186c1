// Package bindtest starts a real BIND 9 name server (named, Debian package
// bind9) for the tests of provider/rfc2136 and verify.
//
// [Start] writes a named.conf, TSIG keys and zone files into t.TempDir(),
// picks a free loopback port, starts named in the foreground on 127.0.0.1,
// waits until every zone answers SOA and stops named in t.Cleanup. The
// zones accept dynamic updates and zone transfers signed with the server's
// TSIG keys (one hmac-sha256 and one hmac-sha512 key), and answer plain
// queries from anyone.
//
// When named is not installed, Start skips the test with a message, unless
// the environment variable ZONESYNC_REQUIRE_BIND is "1": then it fails the
// test, so that CI (which installs bind9) never silently skips.
//
// The package links package testing and is for tests only.
package bindtest
