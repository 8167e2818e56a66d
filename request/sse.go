package request

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxStreamEvent bounds one server-sent event (its data lines joined), in
// bytes. A longer event is an error: no reply of a provider comes near it.
const maxStreamEvent = 16 << 20

// readEvents reads server-sent events from r and calls fn with each
// event's name ("" when the event has no event: field) and data (its data
// lines joined by newlines), in order, until r ends or fn returns an
// error. Comments and fields other than event and data are skipped, as the
// SSE format says.
func readEvents(r io.Reader, fn func(name string, data []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var name string
	var data []byte
	has := false
	for {
		line, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("%w: reading the event stream: %w", ErrReply, err)
		}
		eof := errors.Is(err, io.EOF)
		if len(line) == 0 {
			if has {
				if ferr := fn(name, data); ferr != nil {
					return ferr
				}
			}
			name, data, has = "", data[:0], false
			if eof {
				return nil
			}
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		switch string(field) {
		case "event":
			name = string(value)
		case "data":
			if has {
				data = append(data, '\n')
			}
			data = append(data, value...)
			has = true
			if len(data) > maxStreamEvent {
				return fmt.Errorf("%w: an event of the stream exceeds %d bytes", ErrReply, maxStreamEvent)
			}
		}
		if eof {
			if has {
				return fn(name, data)
			}
			return nil
		}
	}
}

// readLine returns the next line without its line ending (\n, \r\n or \r
// before \n), bounded by MaxStreamEvent.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxStreamEvent {
			return nil, fmt.Errorf("a line of the stream exceeds %d bytes", maxStreamEvent)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		return line, err
	}
}
