# An example site configuration for running ngx's checks on a Slurm cluster
# (ReFrame 4). Edit the host names, partitions, account and the ngx install.
#
#   cluster:compute         sbatch + srun; one rank per node for the pair checks
#                           with -S num_tasks_per_node=1
#   cluster:compute-mpirun  sbatch + mpirun inside the allocation (an MPI
#                           stack whose mpirun reads the Slurm allocation)
#
# Both carry the feature 'mpi', so NgxMpiShare runs there. The checks take
# the ngx binary and the baselines' folder from where ReFrame runs:
#   export NGX=/opt/ngx/bin/ngx NGX_BASELINES=/shared/ngx-baselines
# (or -S ngx=... -S baseline_dir=...); both must be visible on the nodes.
site_configuration = {
    'systems': [
        {
            'name': 'cluster',
            'descr': 'a Slurm cluster',
            'hostnames': [r'login\d+'],
            'modules_system': 'lmod',
            'partitions': [
                {
                    'name': 'compute',
                    'descr': 'compute nodes, srun',
                    'scheduler': 'slurm',
                    'launcher': 'srun',
                    'access': ['--partition=compute', '--account=netcheck', '--exclusive'],
                    'environs': ['ngx'],
                    'features': ['mpi'],
                    'max_jobs': 4,
                    # PMIx for ngx's MPI bootstrap and its mpi module
                    'env_vars': [['SLURM_MPI_TYPE', 'pmix']],
                },
                {
                    'name': 'compute-mpirun',
                    'descr': 'compute nodes, mpirun inside the allocation',
                    'scheduler': 'slurm',
                    'launcher': 'mpirun',
                    'access': ['--partition=compute', '--account=netcheck', '--exclusive'],
                    'environs': ['ngx'],
                    'features': ['mpi'],
                    'max_jobs': 4,
                },
            ],
        },
    ],
    'environments': [
        {
            'name': 'ngx',
            # what the jobs load: the MPI stack ngx's mpi module was built against
            'modules': ['openmpi'],
        },
    ],
    'logging': [
        {
            'handlers_perflog': [
                {'type': 'filelog', 'prefix': '%(check_system)s/%(check_partition)s', 'level': 'info',
                 'format': '%(check_job_completion_time)s|%(check_result)s|%(check_display_name)s|%(check_perfvalues)s',
                 'format_perfvars': '%(check_perf_var)s=%(check_perf_value)s %(check_perf_unit)s|',
                 'append': True},
            ],
        },
    ],
}
