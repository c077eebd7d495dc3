# mk/platforms.mk: learning platforms and batch grading (docs/instructors.md).
#
#   make gradescope LAB=lab3      dist/gradescope-lab3-folding.zip (the autograder to upload;
#                                 GRADESCOPE_TIMEOUT=900 when its timeout is raised from 600 s)
#   make prairielearn LAB=lab3    dist/prairielearn-lab3-folding/ (folders for a course repository, and
#                                 image/, the grading image with the kit built once: build and push it,
#                                 then PL_IMAGE=name for info.json; PL_TIMEOUT=s, at most 600)
#   make github LAB=lab3          dist/github-lab3-folding/ (a starting repository that grades every push)
#   make batch LAB=lab3 SUBMISSIONS=dir [OUT=grades/lab3] [ONLY=gpu]
#                                 grade every subfolder of dir into OUT.csv and OUT.jsonl
#                                 (ONLY=gpu: the GPU-only items; tools/merge-grades.sh adds them up;
#                                 ENGINE=slurm: as a job array on a Slurm cluster, batch.slurm.conf)
#   make batch-collect OUT=grades/lab3   gathers a Slurm batch started with SLURM_WAIT=no
#   make grades-export LMS=canvas|moodle GRADES=grades/lab3.csv ASSIGNMENT="Lab 3 (1234)" [ROSTER=canvas.csv]
#   make grades-stats GRADES=grades/lab3.jsonl [FORMAT=html]   the class's results, item by item (html: a page)
#   make similarity LAB=lab3 SUBMISSIONS=dir [THRESHOLD=60]   pairs of submissions much alike

.PHONY: gradescope prairielearn github classroom batch batch-collect grades-export grades-stats similarity
need_lab = $(if $(LAB),,$(error give the lab: make $@ LAB=lab3 (labs: $(LABS))))

gradescope:
	$(need_lab)@GRADESCOPE_TIMEOUT=$(GRADESCOPE_TIMEOUT) sh platforms/gradescope/build.sh $(LAB)
prairielearn:
	$(need_lab)@PL_IMAGE=$(PL_IMAGE) PL_TIMEOUT=$(PL_TIMEOUT) sh platforms/prairielearn/build.sh $(LAB)
github:
	$(need_lab)@sh platforms/github/build.sh $(LAB)
classroom:
	@echo "make classroom: GitHub Classroom's autograding is retired; make github LAB=... builds a repository" >&2
	@echo "whose own GitHub Actions workflow grades every push (docs/instructors.md, \"GitHub\")." >&2
	@exit 2
batch:
	$(need_lab)$(if $(SUBMISSIONS),,$(error give the submissions: make batch LAB=$(LAB) SUBMISSIONS=dir))@ONLY=$(ONLY) ENGINE=$(ENGINE) REGRADE='$(subst ','\'',$(REGRADE))' sh tools/batch-grade.sh $(LAB) '$(subst ','\'',$(SUBMISSIONS))' $(if $(OUT),'$(subst ','\'',$(OUT))')
batch-collect:
	$(if $(OUT),,$(error give the batch: make batch-collect OUT=grades/lab3 (the OUT of make batch ... ENGINE=slurm)))@sh tools/slurm-batch.sh collect '$(subst ','\'',$(OUT))'
grades-export:
	$(if $(filter canvas moodle,$(LMS)),,$(error make grades-export LMS=canvas|moodle GRADES=grades/lab3.csv ASSIGNMENT="Lab 3 (1234)"))$(if $(GRADES),,$(error give GRADES=grades/lab3.csv))@sh tools/grades-export.sh $(LMS) '$(subst ','\'',$(GRADES))' '$(subst ','\'',$(or $(ASSIGNMENT),$(basename $(notdir $(GRADES)))))' $(if $(ROSTER),'$(subst ','\'',$(ROSTER))')
grades-stats:
	$(if $(GRADES),,$(error give the grades: make grades-stats GRADES=grades/lab3.jsonl))@sh tools/grades-stats.sh $(if $(filter html,$(FORMAT)),--html) '$(subst ','\'',$(GRADES))'
similarity:
	$(need_lab)$(if $(SUBMISSIONS),,$(error give the submissions: make similarity LAB=$(LAB) SUBMISSIONS=dir))@sh tools/similarity.sh $(LAB) '$(subst ','\'',$(SUBMISSIONS))' $(THRESHOLD)

# The grader with an instructor's hidden suite in the place of its lab's
# public one, for tools/batch-grade.sh: built once per batch run from the
# kit's own grader objects (only the suite is compiled), with the runner
# copied beside it.  Its folder must lie two levels below the kit (as
# build/host does): the grader finds the kit from where it lies.
#   make HIDDEN_SUITE=grading/hidden/lab3-folding.c HIDDEN_GRADER=build/batch-XXXX/grader build/batch-XXXX/grader
ifneq ($(HIDDEN_GRADER),)
hidden_lab := $(basename $(notdir $(HIDDEN_SUITE)))
$(dir $(HIDDEN_GRADER))suite.o: $(HIDDEN_SUITE) $(GRADER_OBJS)
	$(CC) $(HOST_CFLAGS) $(CHECK_CFLAGS) -c $< -o $@
$(HIDDEN_GRADER): $(filter-out $(HOST)/grading/$(hidden_lab)/suite.o,$(GRADER_OBJS)) $(dir $(HIDDEN_GRADER))suite.o $(HOST)/runner
	$(CC) -o $@ $(filter %.o %.a,$^) $(CHECK_LIBS) -ldl
	cp $(HOST)/runner $(@D)/runner
endif
