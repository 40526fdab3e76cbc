# ngx's ReFrame test library (README.md beside it): regression checks of a
# system's communication costs, each one ngx run under the partition's
# launcher (local, mpirun, srun), its sanity from ngx's exit status and JSON,
# ngx's numbers as performance variables with units, and a gate: `ngx check`
# of the run against a baseline run of the same check kept per system and
# partition, so that a regression fails the check with ngx check's verdict
# in the message.
#
#     reframe -C config/local.py -c ngx_checks.py -r -S record_baseline=yes   # once, on a healthy system
#     reframe -C config/local.py -c ngx_checks.py -r                          # every night
import json
import math
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import reframe as rfm
import reframe.utility.sanity as sn
import reframe.utility.typecheck as typ
from reframe.core.builtins import parameter, run_after, run_before, sanity_function, variable
from reframe.core.exceptions import SanityError

HERE = os.path.dirname(os.path.abspath(__file__))
RESULT = 'ngx.json'      # the run's result, in the stage (and output) directory
EXIT_FILE = 'ngx.exit'   # the launcher's exit status, written by the job script
CHECK_LOG = 'ngx-check.txt'


def _value(value):
    return value


def _tail(path, lines=4):
    """The last lines of a job's stderr: ngx's own errors when it gave any."""
    try:
        with open(path, errors='replace') as f:
            text = [line.rstrip() for line in f if line.strip()]
    except OSError:
        return ''
    errors = [line for line in text if line.startswith('ngx') and not re.search(r'^ngx: (warning|note):', line)]
    return ' | '.join((errors or text)[-lines:])


def _size_name(size):
    for unit, scale in (('MiB', 1 << 20), ('KiB', 1 << 10)):
        if size >= scale and size % scale == 0:
            return f'{size // scale}{unit}'
    return f'{size}B'


def _ngx_bytes(size):
    """A size as ngx check names it ("64 KiB", "8 B")."""
    for unit, scale in (('MiB', 1 << 20), ('KiB', 1 << 10)):
        if size >= scale and size % scale == 0:
            return f'{size // scale} {unit}'
    return f'{size} B'


def _runs(doc):
    return doc.get('runs', [doc])


class NgxCheck(rfm.RunOnlyRegressionTest):
    '''One ngx run, gated by `ngx check` against this check's baseline.'''

    #: the ngx binary (on the compute nodes and where ReFrame runs)
    ngx = variable(str, value=os.environ.get('NGX', 'ngx'))
    #: the module measured (-m); -P ngx_module:tcp,shm runs a check per module
    ngx_module = variable(str, value='tcp')
    #: options of the module or of ngx for every run (e.g. '--sim-clock virtual')
    module_opts = variable(str, value='')
    #: samples per size (-c)
    count = variable(int, value=200)
    #: where baselines live: DIR/SYSTEM/PARTITION/CHECK.json
    baseline_dir = variable(str, value=os.environ.get('NGX_BASELINES', os.path.join(HERE, 'baselines')))
    #: this check's baseline file; empty: the one under baseline_dir
    baseline = variable(str, value='')
    #: copy this run to the baseline instead of checking against it
    record_baseline = variable(typ.Bool, value=False)
    #: ngx check --tolerance (empty: ngx check's default minimum effect)
    tolerance = variable(str, value='')
    #: ngx check --alpha
    alpha = variable(str, value='0.05')

    valid_systems = ['*']
    valid_prog_environs = ['*']
    time_limit = '10m'
    #: ranks of the run (srun/mpirun tasks; with the local launcher, --pairs ranks/2)
    ranks = variable(int, value=2)
    tags = {'ngx'}

    # What each check adds: the pattern's options, its sanity, its numbers.
    def ngx_options(self):
        raise NotImplementedError

    def preflight(self):
        '''Configuration errors the check can name before reading ngx's result.'''

    def check_document(self, doc):
        pass

    def performance_values(self, doc):
        '''{name: (value, unit)}'''
        return {}

    def watched(self, testcase):
        '''Whether a value of ngx check (a JUnit testcase) gates this check.'''
        return True

    def baseline_key(self):
        return f'{type(self).__name__}-{self.ngx_module}'

    @run_after('setup')
    def set_command(self):
        self.executable = self.ngx
        local = self.current_partition.launcher_type.registered_name == 'local'
        self.num_tasks = 1 if local else self.ranks
        pairs = ['--pairs', str(self.ranks // 2)] if local and self.ranks > 2 else []
        self.executable_opts = (pairs + ['-m', self.ngx_module] + self.module_opts.split() + self.ngx_options() +
                                ['-o', RESULT])
        self.postrun_cmds = [f'echo $? > {EXIT_FILE}']
        self.keep_files = [RESULT, CHECK_LOG]

    def baseline_path(self):
        if self.baseline:
            return self.baseline
        return os.path.join(self.baseline_dir, self.current_system.name, self.current_partition.name,
                            self.baseline_key() + '.json')

    def staged(self, name):
        return os.path.join(self.stagedir, name)

    def _ngx_status(self):
        try:
            with open(self.staged(EXIT_FILE)) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            raise SanityError(f'ngx did not record its exit status ({EXIT_FILE} missing): the job did not run it; '
                              f'job stderr: {_tail(self.staged(self.job.stderr))}')

    def _document(self):
        try:
            with open(self.staged(RESULT)) as f:
                return json.load(f)
        except (OSError, ValueError) as error:
            raise SanityError(f'ngx exited 0 but its result {RESULT} is unreadable: {error}')

    @sanity_function
    def ngx_sanity(self):
        self.preflight()
        code = self._ngx_status()
        if code != 0:
            raise SanityError(f'ngx -m {self.ngx_module} exited {code}: {_tail(self.staged(self.job.stderr))}')
        doc = self._document()
        for run in _runs(doc):
            if run.get('status') != 'complete':
                raise SanityError(f'ngx run of {run.get("module")} did not complete: status {run.get("status")}')
        self.check_document(doc)
        self.gate()
        return True

    def gate(self):
        path = self.baseline_path()
        if self.record_baseline:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            shutil.copyfile(self.staged(RESULT), path)
            with open(self.staged(CHECK_LOG), 'w') as f:
                f.write(f'recorded {path} as the baseline\n')
            return
        if not os.path.isfile(path):
            raise SanityError(f'no baseline for {self.current_system.name}:{self.current_partition.name} at {path}: '
                              f'record one on a healthy system with -S record_baseline=yes')
        options = ['--alpha', self.alpha] + (['--tolerance', self.tolerance] if self.tolerance else [])
        command = [self.ngx, 'check'] + options + [path, self.staged(RESULT)]
        try:
            text = subprocess.run(command, capture_output=True, text=True, timeout=120)
            junit = subprocess.run(command[:2] + ['--format', 'junit'] + command[2:], capture_output=True,
                                   text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise SanityError(f'ngx check could not run: {error}')
        with open(self.staged(CHECK_LOG), 'w') as f:
            f.write(' '.join(command) + '\n' + text.stdout + text.stderr + f'exit {text.returncode}\n')
        if text.returncode not in (0, 1) or junit.returncode not in (0, 1):
            raise SanityError(f'ngx check refused the comparison (exit {text.returncode}): '
                              f'{(text.stderr or junit.stderr).strip()}')
        failures = []
        for case in ET.fromstring(junit.stdout).iter('testcase'):
            failure = case.find('failure')
            if failure is not None and self.watched(case.get('name')):
                run = case.get('classname', '').replace('ngx.check.', '')
                failures.append(f'{run} {case.get("name")}: {failure.get("message")}')
        if failures:
            verdict = text.stdout.strip().splitlines()[-1] if text.stdout.strip() else ''
            raise SanityError(f'ngx check against {path}: {verdict}; ' + '; '.join(failures) +
                              f' (the whole verdict: {CHECK_LOG})')

    @run_before('performance')
    def set_performance(self):
        if self.is_dry_run():
            return
        values = self.performance_values(self._document())
        self.perf_variables = {name: sn.make_performance_function(_value, unit, float(f'{value:.6g}'))
                               for name, (value, unit) in values.items()
                               if value is not None and math.isfinite(value)}


class NgxPingpongCheck(NgxCheck):
    sizes = variable(str, value='1,64,1Ki')

    def ngx_options(self):
        return ['-x', 'pingpong', '-s', self.sizes, '-c', str(self.count), '--raw']

    def check_document(self, doc):
        results = _runs(doc)[0]['results']
        if not results or any(not (r.get('median_us', 0) > 0) for r in results):
            raise SanityError(f'ngx pingpong gave no positive median for every size of {self.sizes}')


@rfm.simple_test
class NgxLatency(NgxPingpongCheck):
    '''Half round trip of small messages per module (us).'''
    descr = 'ngx pingpong: latency of small messages'

    def performance_values(self, doc):
        return {f'latency_{_size_name(r["size_bytes"])}': (r['median_us'], 'us') for r in _runs(doc)[0]['results']}


@rfm.simple_test
class NgxBandwidth(NgxPingpongCheck):
    '''Ping-pong bandwidth of large messages per module (MB/s).'''
    descr = 'ngx pingpong: bandwidth of large messages'
    sizes = '64Ki,1Mi'
    count = 50

    def performance_values(self, doc):
        return {f'bandwidth_{_size_name(r["size_bytes"])}': (r['size_bytes'] / r['median_us'], 'MB/s')
                for r in _runs(doc)[0]['results']}


@rfm.simple_test
class NgxLogGP(NgxCheck):
    '''LogGP parameters per protocol range; gated on the parameters.'''
    descr = 'ngx loggp: L, o, g, G per protocol range'
    sizes = variable(str, value='1-1Mi')
    units = {'_us_per_byte': 'us/B', '_us': 'us'}

    def ngx_options(self):
        return ['-x', 'loggp', '-s', self.sizes]

    def check_document(self, doc):
        if not _runs(doc)[0].get('model', {}).get('ranges'):
            raise SanityError('ngx loggp fitted no protocol range (model.ranges is empty)')

    def watched(self, testcase):
        return '[' in testcase  # "L_us [1 B..64 KiB]": a parameter, not a size

    def performance_values(self, doc):
        values = {}
        for i, rng in enumerate(_runs(doc)[0]['model']['ranges']):
            for name, measured in rng.get('intervals', {}).items():
                unit = next(u for suffix, u in self.units.items() if name.endswith(suffix))
                values[f'r{i}_{name}'] = (measured.get('value'), unit)
        return values


@rfm.simple_test
class NgxMpiShare(NgxCheck):
    '''MPI against the raw transport: the raw module's share of MPI's time per size.'''
    descr = 'ngx -m RAW,mpi pingpong: what MPI adds to the transport'
    valid_systems = ['+mpi']
    raw_module = variable(str, value='tcp')
    mpi_module = variable(str, value='mpi')
    sizes = variable(str, value='1,1Ki,64Ki')

    def baseline_key(self):
        return f'{type(self).__name__}-{self.raw_module}-{self.mpi_module}'

    @run_after('init')
    def both_modules(self):
        self.ngx_module = f'{self.raw_module},{self.mpi_module}'

    def ngx_options(self):
        return ['-x', 'pingpong', '-s', self.sizes, '-c', str(self.count)]

    def check_document(self, doc):
        modules = [r['module'] for r in _runs(doc)]
        if modules != [self.raw_module, self.mpi_module]:
            raise SanityError(f'expected runs of {self.raw_module} and {self.mpi_module}, got {modules}')

    def performance_values(self, doc):
        raw, mpi = (_runs(doc)[i]['results'] for i in (0, 1))
        values = {}
        for a, b in zip(raw, mpi):
            name = _size_name(a['size_bytes'])
            values[f'raw_share_{name}'] = (a['median_us'] / b['median_us'], 'fraction')
            values[f'mpi_adds_{name}'] = (b['median_us'] - a['median_us'], 'us')
        return values


@rfm.simple_test
class NgxAllPairs(NgxCheck):
    '''All pairs of a set of ranks (nodes): fails when the verdict names a slow node or link.'''
    descr = 'ngx allpairs: the verdict over every pair'
    ranks = 4
    sizes = variable(str, value='8,64Ki')
    count = 12

    def ngx_options(self):
        return ['-x', 'allpairs', '-s', self.sizes, '-c', str(self.count)]

    def verdict_of(self, doc):
        verdict = _runs(doc)[0].get('model', {}).get('allpairs', {}).get('outliers')
        if verdict is None:
            raise SanityError('ngx allpairs gave no verdict (model.allpairs.outliers)')
        if verdict['nodes'] or verdict['links']:
            raise SanityError(f'ngx allpairs: slow nodes {verdict["nodes"]}, slow links {verdict["links"]}')

    def watched(self, testcase):
        return testcase == self.bandwidth_size  # the verdict watches the links; latency is NgxLatency's

    def check_document(self, doc):
        self.verdict_of(doc)
        self.bandwidth_size = _ngx_bytes(_runs(doc)[0]['results'][-1]['size_bytes'])

    def performance_values(self, doc):
        cells = _runs(doc)[0]['model']['allpairs']
        latency = [v for row in cells['latency_us'] for v in row if v is not None]
        bandwidth = [v for row in cells['bandwidth_MBps'] for v in row if v is not None]
        return {'latency_max': (max(latency), 'us'), 'latency_min': (min(latency), 'us'),
                'bandwidth_min': (min(bandwidth), 'MB/s'), 'bandwidth_max': (max(bandwidth), 'MB/s')}


@rfm.simple_test
class NgxCollectives(NgxCheck):
    '''Collectives measured against their prediction from the system's LogGP model.'''
    descr = 'ngx coll: the error of collective predictions'
    coll_op = parameter(['allreduce'])
    coll_algorithm = parameter(['ring', 'rabenseifner'])
    ranks = 4
    sizes = variable(str, value='256Ki,1Mi')
    count = 10
    #: the model the predictions come from; empty: this partition's NgxLogGP baseline
    coll_params = variable(str, value='')
    #: the largest |error| of a prediction that passes, percent
    max_error = variable(float, value=25.0)

    def baseline_key(self):
        return f'{type(self).__name__}-{self.ngx_module}-{self.coll_op}-{self.coll_algorithm}'

    def model_path(self):
        return self.coll_params or os.path.join(self.baseline_dir, self.current_system.name,
                                                self.current_partition.name, f'NgxLogGP-{self.ngx_module}.json')

    def ngx_options(self):
        return ['-x', 'coll', '--coll-op', self.coll_op, '--coll-algorithm', self.coll_algorithm, '-s', self.sizes,
                '-c', str(self.count), '--raw', '--coll-params', self.model_path()]

    def preflight(self):
        if not os.path.isfile(self.model_path()):
            raise SanityError(f'no LogGP model at {self.model_path()} to predict from: record the NgxLogGP '
                              f'baseline first (-S record_baseline=yes), or set coll_params')

    def check_document(self, doc):
        for r in _runs(doc)[0]['results']:
            error = r.get('error_pct')
            if error is None or not math.isfinite(error):
                raise SanityError(f'ngx coll gave no prediction error at {_size_name(r["size_bytes"])}')
            if abs(error) > self.max_error:
                raise SanityError(f'{self.coll_op} {self.coll_algorithm} of {_size_name(r["size_bytes"])}: '
                                  f'measured {error:+.1f}% off its prediction (beyond {self.max_error:g}%)')

    def performance_values(self, doc):
        values = {}
        for r in _runs(doc)[0]['results']:
            name = _size_name(r['size_bytes'])
            values[f'time_{name}'] = (r['median_us'], 'us')
            values[f'error_{name}'] = (r['error_pct'], '%')
        return values
