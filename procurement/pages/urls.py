from django.urls import path

from . import approvals, chat, home, memory, notices, review, tasks, timetravel

urlpatterns = [
    path("", home.home, name="home"),
    path("requests/", home.my_requests, name="my-requests"),
    path("requests/new/", home.request_new, name="request-new"),
    path("chat/", chat.sessions, name="chat-sessions"),
    path("chat/new/", chat.session_new, name="chat-new"),
    path("chat/<uuid:session_id>/", chat.chat_page, name="chat-page"),
    path("chat/<uuid:session_id>/messages/", chat.chat_message, name="chat-message"),
    path("tasks/<uuid:task_id>/", tasks.task_page, name="task-page"),
    path("tasks/<uuid:task_id>/amend/", tasks.task_amend, name="task-amend"),
    path("tasks/<uuid:task_id>/cancel/", tasks.task_cancel, name="task-cancel"),
    path("tasks/<uuid:task_id>/pause/", timetravel.task_pause, name="task-pause"),
    path("tasks/<uuid:task_id>/resume/", timetravel.task_resume, name="task-resume"),
    path("tasks/<uuid:task_id>/replay/", timetravel.task_replay, name="task-replay"),
    path("tasks/<uuid:task_id>/rewind/", timetravel.task_rewind, name="task-rewind"),
    path("tasks/<uuid:task_id>/fork/", timetravel.task_fork, name="task-fork"),
    path("approvals/", approvals.inbox, name="approval-inbox"),
    path("approvals/export.<slug:fmt>", approvals.inbox_export, name="approval-export"),
    path("approvals/<uuid:approval_id>/", approvals.approval_page, name="approval-page"),
    path("approvals/<uuid:approval_id>/decide/", approvals.decide, name="approval-decide"),
    path("notices/", notices.notices_page, name="notices"),
    path("notices/read/", notices.notices_read, name="notices-read"),
    path("review/", review.review_queue, name="review-queue"),
    path("review/<uuid:task_id>/<str:action>/", review.review_action, name="review-action"),
    path("memory/", memory.memory_list, name="memory-list"),
    path("memory/<uuid:entry_id>/", memory.memory_entry, name="memory-entry"),
    path("memory/<uuid:entry_id>/correct/", memory.memory_correct_view, name="memory-correct"),
    path("memory/<uuid:entry_id>/confirm/", memory.memory_confirm_view, name="memory-confirm"),
    path("memory/<uuid:entry_id>/delete/", memory.memory_delete_view, name="memory-delete"),
]
