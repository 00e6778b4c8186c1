package rfc2136_test

import (
	"fmt"

	"github.com/zonesync/zonesync/provider/rfc2136"
)

// LoadTSIGKeyFile reads the key file named.conf includes; the key goes
// into Config.TSIG as it is.
func ExampleLoadTSIGKeyFile() {
	key, err := rfc2136.LoadTSIGKeyFile("testdata/zonesync.key")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(key.KeyName, key.Algorithm)
	p, err := rfc2136.New(rfc2136.Config{Server: "192.0.2.53", Zones: []string{"example.test"}, TSIG: key})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Zones())
	// Output:
	// zonesync-example hmac-sha256
	// [example.test]
}

// ParseTSIGKey reads BIND's key statement, comments included, and says
// which line, key and field are at fault.
func ExampleParseTSIGKey() {
	key, err := rfc2136.ParseTSIGKey([]byte(`
# made by tsig-keygen -a hmac-sha512 zonesync
key "zonesync" {
	algorithm hmac-sha512; // the server's algorithm
	secret "c2VjcmV0";
};`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(key.KeyName, key.Algorithm)

	_, err = rfc2136.ParseTSIGKey([]byte(`key "zonesync" {
	algorithm hmac-md5;
	secret "c2VjcmV0";
};`))
	fmt.Println(err)
	// Output:
	// zonesync hmac-sha512
	// rfc2136: TSIG key: line 2: key "zonesync": algorithm "hmac-md5" is not supported: use hmac-sha256 or hmac-sha512
}
