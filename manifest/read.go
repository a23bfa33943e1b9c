package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxStreamDocument is the most nodeplan reads of one document from a stream (standard
// input): past it, reading stops with an error, so that an endless stream such as /dev/zero
// ends at once instead of filling memory.
const MaxStreamDocument = 256 << 20

// checkReadable refuses what is neither a regular file nor a directory (a device, a named
// pipe, a socket) before it is opened: /dev/zero never ends, and a named pipe without a
// writer blocks at open.
func checkReadable(path string, info fs.FileInfo) error {
	mode := info.Mode()
	if mode.IsRegular() || mode.IsDir() {
		return nil
	}
	var what string
	switch {
	case mode&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case mode&fs.ModeSocket != 0:
		what = "a socket"
	case mode&fs.ModeDevice != 0:
		what = "a device"
	default:
		what = "not a regular file"
	}
	return fmt.Errorf("%s: is %s, not a file or directory: to read a stream, pipe it to -f - (standard input)", path, what)
}

// readFile reads a manifest file, refusing devices, pipes and sockets.
func readFile(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := checkReadable(path, info); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}

// readStream reads all of r, stopping with an error naming the document (its 1-based number
// and first line) once one document is larger than limit bytes. Documents are cut as
// splitFile cuts them: at YAML document markers ("---", "...") and, in a stream starting
// with JSON, after each top-level JSON value.
func readStream(r io.Reader, source string, limit int) ([]byte, error) {
	buf := make([]byte, 0, 512<<10)
	var cut streamCutter
	for {
		if len(buf) == cap(buf) {
			// Grow fourfold (fewer copies, less garbage), but never past one byte more than the document may have: an endless
			// stream then stops at limit bytes, not at the next doubling.
			grown := make([]byte, len(buf), max(len(buf)+1, min(4*cap(buf), cut.docStart+limit+1)))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		cut.scan(buf)
		if size := len(buf) - cut.docStart; size > limit {
			return nil, fmt.Errorf("%s: document %d (starting at line %d) is larger than %d MiB, the most nodeplan reads of one document from a stream",
				source, cut.docs+1, cut.docLine, limit>>20)
		}
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", source, err)
		}
	}
}

// streamCutter follows the document boundaries of a stream as it grows.
type streamCutter struct {
	scanned  int  // bytes of the stream already looked at
	decided  bool // whether the format is known
	json     bool
	docStart int // offset where the current document starts
	docLine  int // its first line, 1-based
	docs     int // non-empty documents ended before it, as splitFile numbers them

	// YAML: the start of the line being read, its number, and whether the current document
	// has content yet.
	lineStart, line int
	content         bool
	// JSON: nesting depth and string state.
	depth            int
	inString, escape bool
}

func (c *streamCutter) scan(buf []byte) {
	if !c.decided {
		c.docLine, c.line = 1, 1
		trimmed := bytes.TrimLeft(bytes.TrimPrefix(buf, utf8BOM), " \t\r\n")
		if len(trimmed) == 0 {
			return
		}
		c.decided = true
		c.json = trimmed[0] == '{' || trimmed[0] == '['
	}
	if c.json {
		c.scanJSON(buf)
	} else {
		c.scanYAML(buf)
	}
}

// scanYAML moves the document start past each complete marker line.
func (c *streamCutter) scanYAML(buf []byte) {
	for {
		i := bytes.IndexByte(buf[c.scanned:], '\n')
		if i < 0 {
			c.scanned = len(buf)
			return
		}
		end := c.scanned + i + 1
		text := bytes.TrimRight(buf[c.lineStart:end], "\r\n")
		switch {
		case isStartMarker(text) || bytes.Equal(text, []byte("...")):
			if c.content {
				c.docs++
			}
			c.docStart, c.docLine = end, c.line+1
			rest := bytes.TrimSpace(text[3:])
			c.content = len(rest) > 0 && rest[0] != '#'
			if c.content { // "--- key: value": the document starts on its marker's line
				c.docStart, c.docLine = c.lineStart, c.line
			}
		case !c.content:
			t := bytes.TrimSpace(text)
			c.content = len(t) > 0 && t[0] != '#'
		}
		c.line++
		c.lineStart, c.scanned = end, end
	}
}

// scanJSON moves the document start past each complete top-level value.
func (c *streamCutter) scanJSON(buf []byte) {
	for ; c.scanned < len(buf); c.scanned++ {
		b := buf[c.scanned]
		if b == '\n' {
			c.line++
		}
		switch {
		case c.escape:
			c.escape = false
		case c.inString:
			switch b {
			case '\\':
				c.escape = true
			case '"':
				c.inString = false
			}
		case b == '"':
			c.inString = true
		case b == '{' || b == '[':
			c.depth++
		case b == '}' || b == ']':
			c.depth--
			if c.depth == 0 {
				c.docs++
				c.docStart, c.docLine = c.scanned+1, c.line
			}
		}
	}
}

// isStartMarker reports whether a line starts a YAML document: "---", alone or followed by a
// blank and more.
func isStartMarker(text []byte) bool {
	return bytes.Equal(text, []byte("---")) || (bytes.HasPrefix(text, []byte("---")) && (text[3] == ' ' || text[3] == '\t'))
}
