package endpoint

// Test access to the unexported encryption primitives.
var (
	EncryptText = encryptText
	DecryptText = decryptText
)
