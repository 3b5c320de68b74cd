# python3 bench/hostile_clients.py BUILD/herd-server 7|8 -- prints one JSON line (docs/operations.md, Hostile clients).
# 7: the RSS with 60 stalled viewers while a commander toggles pause 28/s, a 250x200 map loaded.
# 8: /healthz and --probe while 300 idle sockets from one address fill --max-connections 300.
# 12: snapshot bytes per viewer with 1,000 agents among 8,669 obstacles (JSON, binary), then with
#     five other sessions inspecting 16 agents each (binary). Needs herd-ctl beside the server.
# 16: GET /metrics without the token from one address as fast as it answers for 5 s: answers by
#     status, and /healthz from the same address meanwhile.
# flock: mean tick and /healthz over 10 s of 20,000 agents standing, then 10 s after one
#     set_behaviour flock with radius 1e9 on all of them (4000 x 4000 world).
# queue: 63 queued orders and a patrol of 64 points behind them on each of 20,000 agents: a viewer's snapshot bytes, and the snapshots a
#     --relay-format json relay serves its viewer in 20 s (and its reconnections).
# trajectories: 20,000 wandering agents recorded with --trajectory-max-bytes 64 MiB: the file's
#     growth a second and its size for 30 s, and whether the log says trajectory_full.
# checkpoint: one follow_path of 1,024 points on 20,000 agents: the checkpoint's size, peak RSS,
#     SIGTERM's time, and the restored server's RSS.
import os, re, socket, subprocess, sys, tempfile, threading, time, json, urllib.request
binary = sys.argv[1]
web = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'clients', 'web')
def start(args):
    env = dict(os.environ, HERD_OPEN_COMMANDS='1', HERD_RUNTIME_DIR=os.environ.get('TMPDIR', '/tmp'))
    p = subprocess.Popen([binary, '--address', '127.0.0.1', '--port', '0', '--web-root', web] + args,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
    for line in p.stdout:
        m = re.search(r'listening on http://127\.0\.0\.1:(\d+)/', line)
        if m: return p, int(m.group(1))
def rss(p):
    for l in open(f'/proc/{p.pid}/status'):
        if l.startswith('VmRSS'): return int(l.split()[1]) / 1024
def ws(port, rcvbuf=0):
    s = socket.socket()
    if rcvbuf: s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect(('127.0.0.1', port))
    s.sendall(b'GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n'
              b'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n')
    buf = b''
    while b'\r\n\r\n' not in buf: buf += s.recv(4096)
    return s
def frame(text):
    b = text.encode(); h = bytes([0x81])
    h += bytes([0x80 | len(b)]) if len(b) < 126 else bytes([0x80 | 126, len(b) >> 8, len(b) & 255])
    return h + b'\0\0\0\0' + b
which = sys.argv[2]
if which == '7':
    p, port = start([])
    before = rss(p)
    cmd = ws(port); cmd.sendall(frame('{"type":"hello","protocol":1,"role":"commander"}'))
    rows = ['.' * 249 + '#' if y % 2 else '.' * 250 for y in range(200)]
    cmd.sendall(frame(json.dumps({'type': 'command', 'seq': 100000, 'cmd': 'load_map', 'width': 250, 'height': 200, 'tile_size': 3, 'rows': rows}, separators=(',', ':'))))
    time.sleep(0.5)
    cmd.setblocking(False)
    viewers = []
    for i in range(60):
        v = ws(port, 4096); v.sendall(frame('{"type":"hello","protocol":1,"role":"viewer"}')); viewers.append(v)
    t0 = time.time(); seq = 0; peak = 0
    while time.time() - t0 < 11:
        seq += 1
        cmd.sendall(frame('{"type":"command","seq":%d,"cmd":"%s"}' % (seq, 'pause' if seq % 2 else 'resume')))
        try:
            while cmd.recv(1 << 20): pass
        except BlockingIOError: pass
        peak = max(peak, rss(p)); time.sleep(1 / 28)
    at11 = rss(p)
    for v in viewers: v.close()
    time.sleep(12)
    print(json.dumps({'binary': binary, 'toggles': seq, 'rss_start_mib': round(before), 'rss_after_11s_mib': round(at11),
                      'rss_peak_mib': round(peak), 'rss_12s_after_close_mib': round(rss(p))}))
    p.kill()
elif which == '12':
    ctl = os.path.join(os.path.dirname(binary), 'herd-ctl')
    obstacles = [{'cmd': 'add_obstacle', 'x': 4 + 8 * (i % 99), 'y': 4 + 6.8 * (i // 99), 'radius': 0.5}
                 for i in range(8669)]
    scenario = {'name': 'obstacle_field', 'world': {'width': 800, 'height': 600, 'seed': 1, 'tick_rate': 60},
                'commands': obstacles + [{'cmd': 'spawn', 'count': 1000}]}
    path = os.path.join(tempfile.mkdtemp(), 'obstacle_field.json')
    with open(path, 'w') as f: json.dump(scenario, f)
    p, port = start(['--scenario', path])
    def load(fmt):
        out = subprocess.run([ctl, '--json', '--url', f'ws://127.0.0.1:{port}/ws', 'load', '--viewers', '1',
                              '--duration', '6', '--format', fmt], capture_output=True, text=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        return round(r['bytes_per_second_per_viewer'] / r['snapshots_per_second'] / 1000, 1)
    result = {'binary': binary, 'json_kb_per_snapshot': load('json'), 'binary_kb_per_snapshot': load('binary')}
    inspectors = []
    for k in range(5):
        s5 = ws(port); s5.sendall(frame('{"type":"hello","protocol":1,"role":"viewer","format":"binary"}'))
        ids = list(range(1 + 16 * k, 17 + 16 * k))
        s5.sendall(frame(json.dumps({'type': 'inspect', 'agents': ids}, separators=(',', ':'))))
        threading.Thread(target=lambda c=s5: [c.recv(1 << 20) for _ in iter(int, 1)], daemon=True).start()
        inspectors.append(s5)
    time.sleep(1)
    result['binary_kb_per_snapshot_5_inspectors'] = load('binary')
    print(json.dumps(result))
    p.kill()
elif which == '16':
    import http.client
    p, port = start([])
    statuses = {}; t0 = time.time(); health = []
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=5)
    while time.time() - t0 < 5:
        try:
            conn.request('GET', '/metrics'); r = conn.getresponse(); r.read()
            statuses[r.status] = statuses.get(r.status, 0) + 1
            if r.getheader('Connection', '').lower() == 'close': conn.close()
        except (http.client.HTTPException, OSError):
            conn.close(); conn = http.client.HTTPConnection('127.0.0.1', port, timeout=5)
        if len(health) < (time.time() - t0) * 2:
            h = http.client.HTTPConnection('127.0.0.1', port, timeout=5); h.request('GET', '/healthz')
            health.append(h.getresponse().status); h.close()
    print(json.dumps({'binary': binary, 'answers_by_status': statuses, 'per_second': round(sum(statuses.values()) / 5),
                      'healthz': {str(k): health.count(k) for k in set(health)}}))
    p.kill()
elif which in ('flock', 'checkpoint', 'queue', 'trajectories'):
    import http.client
    spawns = [{'cmd': 'spawn', 'count': 1000} for _ in range(20)]
    scenario = {'name': 'crowd20k', 'world': {'width': 4000, 'height': 4000, 'seed': 1, 'tick_rate': 60, 'max_agents': 20000},
                'commands': spawns}
    work = tempfile.mkdtemp()
    path = os.path.join(work, 'crowd20k.json')
    with open(path, 'w') as f: json.dump(scenario, f)
    def metric(port, name):
        body = urllib.request.urlopen(f'http://127.0.0.1:{port}/metrics', timeout=30).read().decode()
        return float(re.search(r'^' + re.escape(name) + r' (\S+)$', body, re.M).group(1))
    def healthz(port):
        try: return urllib.request.urlopen(f'http://127.0.0.1:{port}/healthz', timeout=5).status
        except urllib.error.HTTPError as e: return e.code
        except Exception: return 'timeout'
    def window(port, seconds):
        s0, c0 = metric(port, 'herd_tick_duration_seconds_sum'), metric(port, 'herd_tick_duration_seconds_count')
        health = []
        for _ in range(seconds * 2):
            health.append(healthz(port)); time.sleep(0.5)
        s1, c1 = metric(port, 'herd_tick_duration_seconds_sum'), metric(port, 'herd_tick_duration_seconds_count')
        return {'ticks': int(c1 - c0), 'mean_tick_ms': round(1000 * (s1 - s0) / max(1, c1 - c0), 1),
                'healthz': {str(k): health.count(k) for k in set(health)}}
    def drain(c):
        c.setblocking(False)
        try:
            while c.recv(1 << 20): pass
        except BlockingIOError: pass
        c.setblocking(True)
    def snapshots(port, seconds):
        # Counts the snapshots (whole messages, fragments joined) a viewer is sent, and the largest.
        v = ws(port); v.sendall(frame('{"type":"hello","protocol":1,"role":"viewer"}'))
        f = v.makefile('rb'); v.settimeout(seconds + 5)
        got = 0; biggest = 0; message = bytearray(); t0 = time.time()
        try:
            while time.time() - t0 < seconds:
                h = f.read(2)
                if len(h) < 2: break
                n = h[1] & 127
                if n == 126: n = int.from_bytes(f.read(2), 'big')
                elif n == 127: n = int.from_bytes(f.read(8), 'big')
                message += f.read(n)
                if h[0] & 0x80:  # the message's last frame
                    if message.startswith(b'{"type":"snapshot"'): got += 1; biggest = max(biggest, len(message))
                    message = bytearray()
        except (socket.timeout, OSError): pass
        v.close()
        return got, biggest
    if which == 'trajectories':
        scenario['commands'] = spawns + [{'cmd': 'set_behaviour', 'agents': 'all', 'behaviour': 'wander'}]
        with open(path, 'w') as f: json.dump(scenario, f)
        db = os.path.join(work, 'run.db')
        p, port = start(['--scenario', path, '--trajectories', db, '--trajectory-max-bytes', str(64 << 20)])
        def size():
            return sum(os.path.getsize(f) for f in (db, db + '-wal') if os.path.exists(f))
        sizes = []
        for _ in range(30):
            time.sleep(1); sizes.append(size())
        p.kill()
        out = p.stdout.read()
        print(json.dumps({'binary': binary, 'mib_per_s_first_5s': round((sizes[5] - sizes[0]) / 5 / 2**20, 1),
                          'mib_at': {str(t): round(sizes[t - 1] / 2**20, 1) for t in (5, 10, 20, 30)},
                          'trajectory_full_logged': 'trajectory_full' in out}))
    elif which == 'queue':
        p, port = start(['--scenario', path])
        time.sleep(3)
        cmd = ws(port); cmd.sendall(frame('{"type":"hello","protocol":1,"role":"commander"}'))
        for k in range(64):
            cmd.sendall(frame('{"type":"command","seq":%d,"cmd":"set_target","agents":"all","target":{"x":%d.5,"y":3000.25},"queue":%s}'
                              % (k + 1, 3000 - k, 'true' if k else 'false')))
        route = ','.join('{"x":%d.5,"y":%d.25}' % (1000 + k, 2000 + k) for k in range(64))
        cmd.sendall(frame('{"type":"command","seq":100,"cmd":"patrol","agents":"all","points":[%s],"queue":true}' % route))
        time.sleep(2); drain(cmd)
        direct, biggest = snapshots(port, 5)
        r, rport = start(['--relay', f'ws://127.0.0.1:{port}/ws', '--relay-format', 'json'])
        time.sleep(1)
        relayed, _ = snapshots(rport, 20)
        r.kill(); r.wait()
        print(json.dumps({'binary': binary, 'snapshot_mb': round(biggest / 1e6, 1), 'bytes_per_agent': round(biggest / 20000),
                          'snapshots_direct_5s': direct, 'snapshots_relayed_20s': relayed}))
        p.kill()
    elif which == 'flock':
        p, port = start(['--scenario', path])
        time.sleep(3)
        before = window(port, 10)
        cmd = ws(port); cmd.sendall(frame('{"type":"hello","protocol":1,"role":"commander"}'))
        cmd.sendall(frame('{"type":"command","seq":1,"cmd":"set_behaviour","agents":"all","behaviour":"flock","radius":1e9}'))
        time.sleep(1); drain(cmd)
        after = window(port, 10)
        print(json.dumps({'binary': binary, 'standing': before, 'flocking_radius_1e9': after}))
        p.kill()
    else:
        ckpt = os.path.join(work, 'world.ckpt')
        args = ['--scenario', path, '--checkpoint', ckpt, '--checkpoint-interval', '5']
        p, port = start(args)
        time.sleep(2)
        cmd = ws(port); cmd.sendall(frame('{"type":"hello","protocol":1,"role":"commander"}'))
        points = [{'x': 100 + (k % 32) * 100, 'y': 100 + (k // 32) * 100} for k in range(int(os.environ.get('POINTS', '1024')))]
        cmd.sendall(frame(json.dumps({'type': 'command', 'seq': 1, 'cmd': 'set_behaviour', 'agents': 'all',
                                      'behaviour': 'follow_path', 'path': points}, separators=(',', ':'))))
        t0 = time.time(); peak = 0; health = []
        while time.time() - t0 < 15:
            drain(cmd); peak = max(peak, rss(p)); health.append(healthz(p and port)); time.sleep(0.5)
        t1 = time.time(); p.terminate(); p.wait(); term_s = round(time.time() - t1, 1)
        size = os.path.getsize(ckpt)  # the one written at shutdown
        q, port2 = start(args)
        time.sleep(3)
        print(json.dumps({'binary': binary, 'checkpoint_mb': round(size / 1e6, 2), 'peak_rss_mib': round(peak),
                          'healthz': {str(k): health.count(k) for k in set(health)}, 'sigterm_s': term_s,
                          'restored_rss_mib': round(rss(q))}))
        q.kill()
else:
    p, port = start(['--max-connections', '300'])
    idle = [socket.create_connection(('127.0.0.1', port)) for _ in range(300)]
    time.sleep(0.5)
    try:
        st = urllib.request.urlopen(f'http://127.0.0.1:{port}/healthz', timeout=3).status
    except urllib.error.HTTPError as e: st = e.code
    except Exception as e: st = str(e)
    pr = subprocess.run([binary, '--probe', '--address', '127.0.0.1', '--port', str(port)], capture_output=True, text=True)
    other = socket.socket(); other.bind(('127.0.0.2', 0)); other.connect(('127.0.0.1', port))
    other.sendall(b'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'); other.settimeout(3)
    try: ol = other.recv(100).split(b'\r\n')[0].decode()
    except Exception as e: ol = str(e)
    print(json.dumps({'binary': binary, 'healthz_same_address': st, 'probe_exit': pr.returncode, 'probe_out': (pr.stdout + pr.stderr).strip()[:80], 'healthz_other_address': ol}))
    p.kill()
