# The site configuration the test suite uses (tests/reframe/): one machine.
#   ngx-local:local    scheduler local, launcher local (ngx forks its own peers)
#   ngx-local:mpirun   scheduler local, launcher mpirun (Open MPI, as root, oversubscribed)
#   ngx-slurm:srun     the suite's private one-node Slurm (tests/slurm/cluster.sh):
#                      scheduler squeue (Slurm without accounting: sacct has no
#                      records, so ReFrame polls squeue), launcher srun
# Select with --system ngx-local:local, ngx-local:mpirun or ngx-slurm:srun.
site_configuration = {
    'systems': [
        {
            'name': 'ngx-local',
            'descr': 'this machine',
            'hostnames': ['.*'],
            'partitions': [
                {
                    'name': 'local',
                    'scheduler': 'local',
                    'launcher': 'local',
                    'environs': ['ngx'],
                    'max_jobs': 1,
                },
                {
                    'name': 'mpirun',
                    'scheduler': 'local',
                    'launcher': 'mpirun',
                    'environs': ['ngx'],
                    'features': ['mpi'],
                    'max_jobs': 1,
                    'env_vars': [
                        ['OMPI_ALLOW_RUN_AS_ROOT', '1'],
                        ['OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1'],
                        ['OMPI_MCA_rmaps_base_oversubscribe', '1'],
                    ],
                },
            ],
        },
        {
            'name': 'ngx-slurm',
            'descr': 'the test suite\'s private one-node Slurm',
            'hostnames': ['.*'],
            'partitions': [
                {
                    'name': 'srun',
                    'scheduler': 'squeue',
                    'launcher': 'srun',
                    'access': ['--partition=test', '--overcommit'],
                    'environs': ['ngx'],
                    'features': ['mpi'],
                    'max_jobs': 1,
                    'env_vars': [['SLURM_MPI_TYPE', 'pmix']],
                },
            ],
        },
    ],
    'environments': [
        {'name': 'ngx', 'cc': 'cc', 'cxx': 'c++', 'ftn': ''},
    ],
    'logging': [
        {
            'level': 'debug',
            'handlers': [
                {'type': 'file', 'name': 'reframe.log', 'level': 'debug', 'append': False,
                 'format': '[%(asctime)s] %(levelname)s: %(check_name)s: %(message)s'},
                {'type': 'stream', 'name': 'stdout', 'level': 'info', 'format': '%(message)s'},
            ],
            'handlers_perflog': [
                {'type': 'filelog', 'prefix': '%(check_system)s/%(check_partition)s', 'level': 'info',
                 'format': '%(check_job_completion_time)s|%(check_result)s|%(check_display_name)s|%(check_perfvalues)s',
                 'format_perfvars': '%(check_perf_var)s=%(check_perf_value)s %(check_perf_unit)s|',
                 'append': True},
            ],
        },
    ],
}
