/* Trivial static binary used by smoke-test.sh to prove that binaries
 * cross-built for the guest architecture run inside the test VM. */
#include <stdio.h>
#include <sys/utsname.h>

int main(int argc, char **argv)
{
	struct utsname u;

	if (uname(&u) != 0) {
		perror("uname");
		return 1;
	}
	printf("hello-static: machine=%s release=%s argc=%d\n", u.machine, u.release, argc);
	return 0;
}
