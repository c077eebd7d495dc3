#!/bin/sh
# Gradescope runs this once, as root, when it builds the autograder image
# (Ubuntu 22.04 base): the build tools and Check from Ubuntu's packages, an
# unprivileged user to run students' code, then the kit prepared for the lab:
# grader and reference built, solution sources deleted.
set -eu
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends build-essential make perl pkg-config check libsubunit-dev
id student >/dev/null 2>&1 || useradd --no-create-home --shell /usr/sbin/nologin student
sh /autograder/source/prepare-kit.sh /autograder/source/kit "$(cat /autograder/source/LAB)"
# Nothing of the kit is the student's to read but what grading copies out.
chmod -R go-rwx /autograder/source
