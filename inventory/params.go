package inventory

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"unicode/utf8"
)

// ErrBadQuery is wrapped by every error [ParseQuery] returns; the handler
// answers such a request with 400 Bad Request.
var ErrBadQuery = errors.New("bad inventory query")

// Query parameters of the handler (see the package documentation,
// "Handler").
const (
	ParamGroup  = "group"
	ParamSource = "source"
	ParamStatus = "status"
	ParamName   = "name"
	ParamOffset = "offset"
	ParamLimit  = "limit"
	ParamFormat = "format"
)

// Formats of the handler's response.
const (
	FormatHTML = "html"
	FormatJSON = "json"
)

// maxParamLen bounds each text parameter, in bytes; maxNumber the
// numbers, so that offsets and limits fit an int on every platform.
const (
	maxParamLen = 256
	maxNumber   = 1 << 30
)

// Query is a request to the handler: a [Filter] and the response's format
// ("" lets the Accept header decide). A Limit of zero asks for the
// handler's default page size.
type Query struct {
	Filter
	Format string
}

// ParseQuery reads a query from the parameters of a request URL:
// group, source, status, name, offset, limit and format, each at most
// once. Parameters of other names are ignored. It fails, with an error
// wrapping [ErrBadQuery], on a repeated parameter, text longer than 256
// bytes or not UTF-8, a status not among [Statuses], an offset or limit
// that is not a decimal number from 0 to 2^30, or a format other than
// html and json. Empty values mean the parameter's default.
func ParseQuery(values url.Values) (Query, error) {
	var q Query
	get := func(name string) (string, error) {
		vs := values[name]
		switch {
		case len(vs) == 0:
			return "", nil
		case len(vs) > 1:
			return "", fmt.Errorf("%w: parameter %s given %d times", ErrBadQuery, name, len(vs))
		case len(vs[0]) > maxParamLen:
			return "", fmt.Errorf("%w: parameter %s is longer than %d bytes", ErrBadQuery, name, maxParamLen)
		case !utf8.ValidString(vs[0]):
			return "", fmt.Errorf("%w: parameter %s is not UTF-8", ErrBadQuery, name)
		}
		return vs[0], nil
	}
	number := func(name string) (int, error) {
		s, err := get(name)
		if err != nil || s == "" {
			return 0, err
		}
		n, err := strconv.ParseUint(s, 10, 31)
		if err != nil || n > maxNumber {
			return 0, fmt.Errorf("%w: parameter %s is not a number from 0 to %d: %q", ErrBadQuery, name, maxNumber, s)
		}
		return int(n), nil
	}
	var err error
	if q.Group, err = get(ParamGroup); err != nil {
		return Query{}, err
	}
	if q.SourceType, err = get(ParamSource); err != nil {
		return Query{}, err
	}
	if q.Name, err = get(ParamName); err != nil {
		return Query{}, err
	}
	if q.Status, err = get(ParamStatus); err != nil {
		return Query{}, err
	}
	if q.Status != "" && !slices.Contains(Statuses(), q.Status) {
		return Query{}, fmt.Errorf("%w: parameter status %q is none of %v", ErrBadQuery, q.Status, Statuses())
	}
	if q.Offset, err = number(ParamOffset); err != nil {
		return Query{}, err
	}
	if q.Limit, err = number(ParamLimit); err != nil {
		return Query{}, err
	}
	if q.Format, err = get(ParamFormat); err != nil {
		return Query{}, err
	}
	if q.Format != "" && q.Format != FormatHTML && q.Format != FormatJSON {
		return Query{}, fmt.Errorf("%w: parameter format %q is neither %s nor %s", ErrBadQuery, q.Format, FormatHTML, FormatJSON)
	}
	return q, nil
}

// Values returns q as URL parameters, leaving out those at their default,
// so that ParseQuery(q.Values()) returns q and equal queries encode alike.
func (q Query) Values() url.Values {
	v := url.Values{}
	set := func(name, s string) {
		if s != "" {
			v.Set(name, s)
		}
	}
	set(ParamGroup, q.Group)
	set(ParamSource, q.SourceType)
	set(ParamStatus, q.Status)
	set(ParamName, q.Name)
	if q.Offset > 0 {
		v.Set(ParamOffset, strconv.Itoa(q.Offset))
	}
	if q.Limit > 0 {
		v.Set(ParamLimit, strconv.Itoa(q.Limit))
	}
	set(ParamFormat, q.Format)
	return v
}

// URL returns "?" and the encoded Values: a link relative to the handler's
// own path, so that the handler works wherever it is mounted.
func (q Query) URL() string {
	return "?" + q.Values().Encode()
}
