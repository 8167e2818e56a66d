package redisstore_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The tests share one redis-server that TestMain starts on a free
// loopback port, in a temporary directory, and stops. Without redis-server
// installed (apt-get install -y redis-server) the tests skip.
var (
	serverAddr string
	serverSkip string
)

// crashEnv, set, makes the test binary a replica that builds one turn and
// waits to be killed (see TestCrashBetweenBuildAndCommit).
const crashEnv = "TOOLSHELF_REDISSTORE_CRASH"

func TestMain(m *testing.M) {
	if os.Getenv(crashEnv) != "" {
		os.Exit(m.Run())
	}
	stop, err := startServer()
	if err != nil {
		serverSkip = err.Error()
	}
	code := m.Run()
	if stop != nil {
		stop()
	}
	os.Exit(code)
}

func startServer() (stop func(), err error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("redis-server is not installed (apt-get install -y redis-server): %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir, err := os.MkdirTemp("", "redisstore-test-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "yes")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop = func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		os.RemoveAll(dir)
	}
	go func() { // drain its log
		sc := bufio.NewScanner(out)
		for sc.Scan() {
		}
	}()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := rdb.Ping(ctx).Err()
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			stop()
			return nil, fmt.Errorf("redis-server on %s did not answer: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	serverAddr = addr
	return stop, nil
}

// client returns a client of the test server, closed with the test, or
// skips the test when there is no server.
func client(t testing.TB) *redis.Client {
	t.Helper()
	if serverAddr == "" {
		if serverSkip == "" {
			serverSkip = "no redis-server"
		}
		t.Skip(serverSkip)
	}
	rdb := redis.NewClient(&redis.Options{Addr: serverAddr})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

var prefixes atomic.Int64

// prefix is a key prefix of its own for each call.
func prefix(t testing.TB) string {
	return "test:" + strings.ReplaceAll(t.Name(), "/", ":") + ":" + strconv.FormatInt(prefixes.Add(1), 10) + ":"
}
