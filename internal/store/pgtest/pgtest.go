// Package pgtest starts a throw-away PostgreSQL cluster for tests and
// benchmarks: initdb into a fresh temporary directory, the postgres server
// as a child process listening only on a Unix socket in that directory
// (-k DIR, empty listen_addresses: no TCP), stopped and removed by Stop. Run as root, the
// server runs as the "postgres" user (PostgreSQL refuses root).
//
// The cluster lives in /dev/shm where that is a writable tmpfs with room
// (base), without fsync unless SECTAX_PGTEST_DURABLE=1 (durable), in an
// owner-marked folder that the next Start removes once the test binary
// that made it is gone (tempdir).
//
// It uses the Debian/Ubuntu layout (/usr/lib/postgresql/N/bin) or initdb
// and postgres on PATH. Without them, Start returns ErrNotInstalled; under
// CI=true callers fail on it, elsewhere they skip.
package pgtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	"golang.org/x/sys/unix"

	"github.com/sectax/sectax/internal/tempdir"
)

// ErrNotInstalled says that no PostgreSQL server binaries were found.
var ErrNotInstalled = errors.New("PostgreSQL is not installed (initdb and postgres not found; Debian: apt-get install postgresql)")

// User is the cluster's superuser (trust authentication over the socket).
const User = "sectax"

// Cluster is a running throw-away PostgreSQL server.
type Cluster struct {
	top  string // tempdir's folder, removed by Stop
	dir  string // the server's: data/, the socket, the log
	bin  string
	cred *syscall.Credential
	cmd  *exec.Cmd
	done chan struct{}
	log  *os.File
	n    atomic.Int64
	// fileCopy: the server (15 or newer) takes CREATE DATABASE's
	// STRATEGY = FILE_COPY, which copies the template's files instead of
	// writing them all to the WAL (half the time of a test's database).
	fileCopy bool
}

// durable keeps PostgreSQL's defaults (SECTAX_PGTEST_DURABLE=1, for
// benchmarks): fsync on, on the disk. Durability is not under test in the
// tests: without it the cluster is fast.
func durable() bool { return os.Getenv("SECTAX_PGTEST_DURABLE") != "" }

// base is where clusters are made: /dev/shm when it is a tmpfs this
// process can write with room to spare (a container's is often 64 MiB; a
// test binary's cluster grows to about 400 MiB, so 2 GiB free), and the
// cluster need not be durable; else the temporary directory. Every test
// database is a copy of the template's thousand files; on a disk's file
// system the server spent a third of its time creating them.
func base() string {
	var st unix.Statfs_t
	if !durable() && unix.Statfs("/dev/shm", &st) == nil && st.Type == unix.TMPFS_MAGIC &&
		st.Bavail*uint64(st.Bsize) >= 2<<30 && unix.Access("/dev/shm", unix.W_OK) == nil {
		return "/dev/shm"
	}
	return os.TempDir()
}

// binDir finds the directory of initdb and postgres, newest version first.
func binDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("postgres"); err == nil {
		if _, err := exec.LookPath("initdb"); err == nil {
			return filepath.Dir(p), nil
		}
	}
	return "", ErrNotInstalled
}

// Start makes and starts a cluster; Stop ends it.
func Start(ctx context.Context) (*Cluster, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	// An owner-marked folder of sectax's (tempdir.MakeIn), so that a later
	// Start removes it once the test binary that made it is gone: one
	// stopped by Ctrl-C or a timeout never reaches Stop, and in /dev/shm
	// its cluster would hold memory until the machine restarts. The
	// server's files are in pg/ below it (the postgres user's when run as
	// root). A short path: the socket's must fit in 107 bytes.
	parent := base()
	tempdir.RemoveStaleIn(parent)
	top, err := tempdir.MakeIn(parent, "pg-")
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(top, "pg")
	c := &Cluster{top: top, dir: dir, bin: bin}
	fail := func(err error) (*Cluster, error) {
		os.RemoveAll(top)
		return nil, err
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return fail(err)
	}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return fail(fmt.Errorf("running as root, PostgreSQL needs an unprivileged user: no user \"postgres\" (%v)", err))
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		c.cred = cred
		if err := os.Chmod(top, 0o711); err != nil { // postgres passes through, and lists nothing
			return fail(err)
		}
		if err := os.Chown(dir, uid, gid); err != nil {
			return fail(err)
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", data, "-U", User,
		"--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	initdb.Dir = dir
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("initdb: %v: %s", err, strings.TrimSpace(string(out))))
	}
	if err := c.serve(ctx); err != nil {
		os.RemoveAll(top)
		return nil, err
	}
	return c, nil
}

// serve starts the server on the cluster's data directory and waits until
// it accepts connections.
func (c *Cluster) serve(ctx context.Context) error {
	logf, err := os.OpenFile(filepath.Join(c.dir, "postgres.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	c.log = logf
	args := []string{"-D", filepath.Join(c.dir, "data"), "-k", c.dir, "-h", "", "-c", "max_connections=200", "-c", "shared_buffers=32MB"}
	if !durable() {
		args = append(args, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	c.cmd = exec.Command(filepath.Join(c.bin, "postgres"), args...)
	c.cmd.Dir = c.dir
	c.cmd.Stdout, c.cmd.Stderr = logf, logf
	// Pdeathsig: if the test binary dies, the server does not outlive it.
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred, Setpgid: true, Pdeathsig: syscall.SIGQUIT}
	if err := c.cmd.Start(); err != nil {
		logf.Close()
		c.log, c.cmd = nil, nil
		return fmt.Errorf("postgres: %w", err)
	}
	done := make(chan struct{})
	c.done = done
	cmd := c.cmd
	go func() { cmd.Wait(); close(done) }()
	if err := c.waitReady(ctx); err != nil {
		c.halt()
		return err
	}
	return nil
}

// waitReady waits until the server answers, and reads its version
// (server_version_num, 150004 for 15.4) as the first answer.
func (c *Cluster) waitReady(ctx context.Context) error {
	db, err := sql.Open("pgx", c.URL("postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		var v int
		err := db.QueryRowContext(pctx, `SELECT current_setting('server_version_num')::int`).Scan(&v)
		cancel()
		if err == nil {
			c.fileCopy = v >= 150000
			return nil
		}
		select {
		case <-c.done:
			return fmt.Errorf("postgres exited at start: %s", c.logTail())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres did not accept connections within 30s: %v; log: %s", err, c.logTail())
		}
	}
}

func (c *Cluster) logTail() string {
	b, _ := os.ReadFile(filepath.Join(c.dir, "postgres.log"))
	s := strings.TrimSpace(string(b))
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	return s
}

// Dir is the cluster's directory (the socket lives in it).
func (c *Cluster) Dir() string { return c.dir }

// URL is the postgres:// URL of database name on the cluster's socket.
func (c *Cluster) URL(name string) string {
	return "postgres://" + User + "@/" + url.PathEscape(name) + "?host=" + url.QueryEscape(c.dir)
}

// CreateDatabase makes an empty database and returns its URL.
func (c *Cluster) CreateDatabase(ctx context.Context, name string) (string, error) {
	db, err := sql.Open("pgx", c.URL("postgres"))
	if err != nil {
		return "", err
	}
	defer db.Close()
	q := `CREATE DATABASE "` + strings.ReplaceAll(name, `"`, `""`) + `"`
	if c.fileCopy {
		q += ` STRATEGY = FILE_COPY`
	}
	if _, err := db.ExecContext(ctx, q); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return c.URL(name), nil
}

// NewDatabase makes a fresh database for one test and returns its URL.
func (c *Cluster) NewDatabase(t testing.TB) string {
	t.Helper()
	u, err := c.CreateDatabase(context.Background(), fmt.Sprintf("t%d", c.n.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// Stop shuts the server down (fast shutdown, then SIGKILL after 10 s),
// waits for it, and removes the directory.
func (c *Cluster) Stop() {
	c.halt()
	os.RemoveAll(c.top)
}

// Halt shuts the server down as Stop does but keeps the cluster's data:
// to its clients the server is gone, as after a network drop or a crash,
// until Restart. A test that halts a shared cluster restarts it before it
// ends.
func (c *Cluster) Halt() { c.halt() }

// Restart starts the server of a halted cluster again, on the same data
// and socket; it does nothing to a running one.
func (c *Cluster) Restart(ctx context.Context) error {
	if c.running() {
		return nil
	}
	return c.serve(ctx)
}

func (c *Cluster) running() bool {
	if c.done == nil {
		return false
	}
	select {
	case <-c.done:
		return false
	default:
		return true
	}
}

func (c *Cluster) halt() {
	if c.cmd != nil && c.cmd.Process != nil {
		_ = c.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
			<-c.done
		}
	}
	if c.log != nil {
		c.log.Close()
		c.log = nil
	}
}

// Shared starts one cluster for a whole test binary on first use. Call
// its Stop from TestMain after m.Run.
type Shared struct {
	once sync.Once
	c    *Cluster
	err  error
}

// Get returns the shared cluster, starting it on first call. When
// PostgreSQL is missing it fails the test under CI=true and skips it
// elsewhere; any other start failure fails the test.
func (s *Shared) Get(t testing.TB) *Cluster {
	t.Helper()
	s.once.Do(func() { s.c, s.err = Start(context.Background()) })
	switch {
	case errors.Is(s.err, ErrNotInstalled) && os.Getenv("CI") != "true":
		t.Skip(s.err)
	case s.err != nil:
		t.Fatal(s.err)
	}
	return s.c
}

// Stop stops the cluster if it was started.
func (s *Shared) Stop() {
	if s.c != nil {
		s.c.Stop()
	}
}
